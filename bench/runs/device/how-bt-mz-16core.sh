#!/bin/bash
# On the 16-core node: NAS BT-MZ, every tasks x threads split at 8 cores (class W) and at 16 (classes W and A):
# MPC's Fig. 9 question (docs/bt-mz.md), each raced by `hybridperf study` (bt-mz-8.yaml, bt-mz-16.yaml beside this
# file), with a budget of runs each (80 s, 300 s): class A's 5 splits need 11 blocks of 20-odd seconds to decide.
# STUDIES="16-ompt:100" SUFFIX=-ompt runs bt-mz-16-ompt.yaml instead: class W's 16-core splits on LLVM's libomp,
# whose OMPT gives BT-MZ's OpenMP factors (a second call, the same day).
# That machine has no network and no Fortran compiler, so BT-MZ travels built. Here, before the run:
#   - NPB 3.3.1-MZ built as docs/bt-mz.md says but with Debian's MPICH (F77 = mpif77.mpich), classes W and A at
#     1, 2, 4, 8 and 16 processes, the binaries in .btmz/bin/;
#   - .btmz/lib/: Debian's libmpichfort.so.12 (MPICH 4.0.2's Fortran binding), libgfortran.so.5, libquadmath.so.0,
#     and LLVM's libomp.so.5 (Debian's llvm-14);
#   - .btmz/build/lib/mpich/libhybridperf-mpi.so: our counting library, built here against Debian's MPICH;
#   - .btmz/: the `mpich` wheel from PyPI (MPICH 5.0.2: its libmpi.so.12 stands in for libmpich.so.12, the ABI
#     being MPICH's); .whl/: jsonschema and its three wheels (how-local-16core.sh).
# Run from the repository root on the lent machine (the device tool: `run` with carry [".btmz", ".whl"]).
# What it writes under $OUT came back as the files beside this one.
set -uo pipefail
B=$PWD/.btmz PY=${PY:-python3}
python3 -m pip install -q --no-index --no-deps --no-compile --prefix /opt/mpich $B/mpich-*.whl || exit 11
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/jsonschema*.whl \
  .whl/referencing*.whl .whl/rpds_py*.whl 2>/dev/null
ln -sf /opt/mpich/lib/libmpi.so.12 $B/lib/libmpich.so.12
export PATH=/opt/mpich/bin:$PATH LD_LIBRARY_PATH=$B/lib:/opt/mpich/lib:/opt/mpich/lib/mpich
export PYTHONPATH=$PWD/python:/tmp/site PYTHONUNBUFFERED=1 HYBRIDPERF_NPB_MZ=$B/bin HYBRIDPERF_BIN_DIR=$B/build/bin
export HYBRIDPERF_LIBOMP=$B/lib/libomp.so.5  # LLVM's (Debian's llvm-14), for bt-mz-16-ompt.yaml's openmp_runtime: libomp
(lscpu | grep -E "Model name|^CPU\(s\)|Socket|NUMA node\(s\)"; mpiexec --version | head -2; uptime) > $OUT/machine.txt 2>&1
for study in ${STUDIES:-8:80 16:300}; do  # the spec bench/runs/device/bt-mz-NAME.yaml : seconds of runs
  name=${study%:*} budget=${study#*:}
  timeout $((budget + 60)) $PY -m hybridperf study bench/runs/device/bt-mz-$name.yaml --results /tmp/r$name \
    --budget ${budget}s --no-report > $OUT/study-$name.log 2>&1
  echo "study $name rc=$?"; tail -4 $OUT/study-$name.log
  $PY -m hybridperf report /tmp/r$name > $OUT/report-$name.txt 2>&1
  $PY -m hybridperf report /tmp/r$name --json > $OUT/verdicts-$name.json 2> /dev/null
done
tar czf $OUT/bt-mz-16core${SUFFIX:-}-results.tgz -C /tmp $(cd /tmp && ls -d r8 r16 r16-ompt 2>/dev/null)
grep -h -A4 "verdict (90%\|POP" $OUT/report-*.txt
