#!/bin/bash
# On the 16-core node: why BT-MZ's threaded splits ran slower under `openmp_runtime: libomp` (bt-mz-16-ompt.yaml)
# than on GCC's libgomp (bt-mz-16.yaml): the same class W binary, 4 tasks x 4 threads and 1 x 16, launched by hand
# the way hybridperf launches it (MPICH's hydra, bound to cores, OMP_PLACES=cores, OMP_PROC_BIND=close), under four
# runtimes in turn, 3 rounds: libgomp; libgomp with our MPI library preloaded (counting, as bt-mz-16.yaml ran);
# LLVM's libomp alone (no OMPT tool); libomp with our MPI library (its OMPT tool on, as bt-mz-16-ompt.yaml ran).
# Each line: shape, runtime, round, BT-MZ's own time. Set up as how-bt-mz-16core.sh (carry [".btmz", ".whl"]).
set -uo pipefail
B=$PWD/.btmz
python3 -m pip install -q --no-index --no-deps --no-compile --prefix /opt/mpich $B/mpich-*.whl 2>/dev/null || exit 11
ln -sf /opt/mpich/lib/libmpi.so.12 $B/lib/libmpich.so.12
export PATH=/opt/mpich/bin:$PATH LD_LIBRARY_PATH=$B/lib:/opt/mpich/lib:/opt/mpich/lib/mpich
PMPI=$B/build/lib/mpich/libhybridperf-mpi.so LIBOMP=$B/lib/libomp.so.5
declare -A PRELOAD=([libgomp]="" [libgomp+counting]="$PMPI" [libomp]="$LIBOMP" [libomp+ompt]="$LIBOMP:$PMPI")
for round in 1 2 3; do
  for shape in ${SHAPES:-4x4 1x16}; do
    ranks=${shape%x*} threads=${shape#*x}
    for runtime in libgomp libgomp+counting libomp libomp+ompt; do
      seconds=$(mpiexec -n $ranks -bind-to core:$threads -map-by core:$threads -genv OMP_NUM_THREADS $threads \
        -genv OMP_PLACES cores -genv OMP_PROC_BIND close -genv LD_PRELOAD "${PRELOAD[$runtime]}" \
        -genv HYBRIDPERF_MPI_PROFILE /tmp/counts.json $B/bin/bt-mz.W.$ranks 2>&1 | awk '/Time in seconds/ {print $5}')
      echo "$shape $runtime $round ${seconds:-failed}"
    done
  done
done | tee $OUT/runtimes.txt
