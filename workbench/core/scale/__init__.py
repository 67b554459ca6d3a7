"""One run over several workers: shards, the coordinator, worker processes and Ray."""
