package dev.fencegate.demo;

/** An object's bytes and the Content-Type it was written with (null when none was sent). */
record StoredObject(byte[] body, String contentType) {
}
