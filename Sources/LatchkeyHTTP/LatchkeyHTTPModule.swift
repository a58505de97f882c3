/// Marker for the HTTP layer; the client and listener live beside this file.
public enum LatchkeyHTTPModule {}
