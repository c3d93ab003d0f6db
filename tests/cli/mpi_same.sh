#!/bin/sh
# A clstat verb under mpirun with --mpi prints what one process prints.
# usage: mpi_same.sh MPIEXEC NP CLSTAT VERB ARGS...  (ARGS without --mpi)
set -e
mpiexec=$1; np=$2; clstat=$3; shift 3
one=$("$clstat" "$@")
many=$("$mpiexec" -np "$np" "$clstat" "$@" --mpi)
echo "one process:"; echo "$one"
echo "$np processes:"; echo "$many"
[ "$one" = "$many" ] && echo "same output"
