package dev.fencegate.fence;

/** Who was granted a token, as the issuer named it. Optional on every claim. */
public record Holder(String value) {

    public Holder {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("holder must not be empty");
        }
    }

    @Override
    public String toString() {
        return value;
    }
}
