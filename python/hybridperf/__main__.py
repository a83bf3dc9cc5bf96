from hybridperf.cli import main

main()
