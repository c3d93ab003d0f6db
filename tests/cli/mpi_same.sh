#!/bin/sh
# clstat select under mpirun with --mpi prints what one process prints.
# usage: mpi_same.sh MPIEXEC NP CLSTAT ARGS...  (ARGS without --mpi)
set -e
mpiexec=$1; np=$2; clstat=$3; shift 3
one=$("$clstat" select "$@")
many=$("$mpiexec" -np "$np" "$clstat" select "$@" --mpi)
echo "one process:"; echo "$one"
echo "$np processes:"; echo "$many"
[ "$one" = "$many" ] && echo "same output"
