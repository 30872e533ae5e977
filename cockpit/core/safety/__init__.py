"""What keeps actions safe: risk classification, site rules, navigation fences, run limits, redaction."""
