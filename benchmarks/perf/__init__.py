"""Speed and memory benchmarks: rerun them after a change to see whether it made brain slower."""
