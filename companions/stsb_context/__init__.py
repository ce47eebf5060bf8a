"""STS-B-Context (SLICE paper, Section 4.2): generated contexts around STS Benchmark target phrases, validated and evaluated."""
