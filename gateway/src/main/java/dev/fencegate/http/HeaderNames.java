package dev.fencegate.http;

/** The header names of the fencing contract. */
public final class HeaderNames {

    public static final String FENCING_TOKEN = "Fencing-Token";
    public static final String FENCING_HOLDER = "Fencing-Holder";
    public static final String FENCING_TOKEN_SIGNATURE = "Fencing-Token-Signature";

    private HeaderNames() {
    }
}
