# labs/lab2/faults.sh - sourced by run.sh and run-sim.sh (after
# labs/common.sh): LAB2_FAULTS=all or a comma list of lab2 train --fault
# names trains the seed's MLP once per fault, the ring rows with the fault
# beside a correct MPI_Allreduce, into $OUT.tmp/faults/ (the report's
# lab2 section reads them: a fault is named as the seed's cause only if it
# gives the seed's 7-10 points; otherwise "cause unknown", with what was
# tried). Opt-in: the seed's scale is `make lab2 PLATFORM=wits80
# LAB2_FAULTS=all`, a few minutes more.
#
# The names are bin/lab2's (labs/lab2/faults.c, which refuses any other);
# checked here too, so that a typo stops the run before its first minute.
LAB2_FAULT_NAMES="neighbour no-divide same-shard unaveraged"

# lab2_faults_parse: LAB2_FAULTS as a space list in lab2_faults, or refuse.
lab2_faults_parse() {
  local f
  lab2_faults=
  [ -n "${LAB2_FAULTS:-}" ] || return 0
  [ "$LAB2_FAULTS" = all ] && LAB2_FAULTS=${LAB2_FAULT_NAMES// /,}
  for f in ${LAB2_FAULTS//,/ }; do
    case " $LAB2_FAULT_NAMES " in
      *" $f "*) lab2_faults+=" $f" ;;
      *) refuse "LAB2_FAULTS='$LAB2_FAULTS': '$f' is not a fault (all, or a comma list of: ${LAB2_FAULT_NAMES// /, })" ;;
    esac
  done
}

# lab2_faults_run NP TRAIN_OPTION...: one training per fault at NP ranks
# (lab_mpi's launcher, and whatever the caller set for it), the rings and
# MPI_Allreduce only (the other algorithms never run a fault).
lab2_faults_run() {
  local np=$1 f
  shift
  [ -n "$lab2_faults" ] || return 0
  mkdir -p "$OUT.tmp/faults"
  for f in $lab2_faults; do
    note "train at $np ranks with the fault '$f' in the ring rows > $OUT/faults/train-np$np-fault-$f.csv"
    lab_mpi "$np" "$LAB_BIN/lab2" train "$@" --algs mpi,ring,ring_async --fault "$f" --out "$OUT.tmp/faults"
  done
}
