"""Running programs on this machine or a cluster: the kernels' binaries, launch lines, execution, hwloc."""
