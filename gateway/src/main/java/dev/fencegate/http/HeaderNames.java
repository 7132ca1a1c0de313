package dev.fencegate.http;

/** The header names of the fencing contract. */
public final class HeaderNames {

    public static final String FENCING_TOKEN = "Fencing-Token";
    public static final String FENCING_HOLDER = "Fencing-Holder";
    public static final String FENCING_TOKEN_SIGNATURE = "Fencing-Token-Signature";
    /** WebDAV's MOVE and COPY name a second object in it (RFC 4918 10.3); the store identity rules read it. */
    public static final String DESTINATION = "Destination";
    public static final String DEPTH = "Depth";

    private HeaderNames() {
    }
}
