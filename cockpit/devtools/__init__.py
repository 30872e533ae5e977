"""Developer utilities: synthetic pages for benchmarks and tests."""
