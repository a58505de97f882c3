/// Shared helpers for process-level tests (filled in by the harness work).
public enum TestSupportModule {}
