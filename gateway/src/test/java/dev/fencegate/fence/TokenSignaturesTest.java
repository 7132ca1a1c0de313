package dev.fencegate.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Only the issuer's signature of exactly this token on exactly this resource passes. */
class TokenSignaturesTest {

    private static final byte[] KEY = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private final TokenSignatures signatures = new TokenSignatures(KEY);

    private static FenceClaim claim(String resource, long token) {
        return new FenceClaim(new ResourceKey(resource), new FencingToken(token), Optional.empty());
    }

    @Test
    void theIssuersSignaturePasses() {
        String signature = signatures.sign(new ResourceKey("/jobs/7"), new FencingToken(42));
        assertThat(signature).startsWith("v1=");
        assertThat(signatures.verify(claim("/jobs/7", 42), signature)).isEmpty();
    }

    @Test
    void aSignatureDoesNotCarryOverToAnotherTokenOrResource() {
        String signature = signatures.sign(new ResourceKey("/jobs/7"), new FencingToken(42));
        assertThat(signatures.verify(claim("/jobs/7", Long.MAX_VALUE), signature)).get().asString().contains("does not match");
        assertThat(signatures.verify(claim("/jobs/8", 42), signature)).get().asString().contains("does not match");
    }

    @Test
    void anotherKeysSignatureAMissingOneOrGarbageIsRefused() {
        TokenSignatures other = new TokenSignatures("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII));
        assertThat(signatures.verify(claim("/j", 1), other.sign(new ResourceKey("/j"), new FencingToken(1)))).isPresent();
        assertThat(signatures.verify(claim("/j", 1), null)).get().asString().contains("no Fencing-Token-Signature");
        assertThat(signatures.verify(claim("/j", 1), "v2=abc")).get().asString().contains("v1=");
        assertThat(signatures.verify(claim("/j", 1), "v1=***")).get().asString().contains("base64url");
    }

    /**
     * The decoder would also take other unused bits in the last character or more padding: each
     * MAC has one spelling, with or without the one pad issuers' default encoders add.
     */
    @Test
    void onlyTheCanonicalSpellingPassesWithOrWithoutItsPad() {
        String signature = signatures.sign(new ResourceKey("/jobs/7"), new FencingToken(42));
        String encoded = signature.substring("v1=".length());
        assertThat(encoded).hasSize(43);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        char last = encoded.charAt(42);
        String otherUnusedBits = signature.substring(0, signature.length() - 1) + alphabet.charAt(alphabet.indexOf(last) ^ 1);
        assertThat(Base64.getUrlDecoder().decode(otherUnusedBits.substring(3)))
                .as("the same MAC, spelt otherwise").isEqualTo(Base64.getUrlDecoder().decode(encoded));
        String badSignature = signatures.verify(claim("/jobs/7", 42), signatures.sign(new ResourceKey("/jobs/8"), new FencingToken(42)))
                .orElseThrow();

        assertThat(signatures.verify(claim("/jobs/7", 42), signature + "=")).as("padded, as Python and Go encode").isEmpty();
        assertThat(signatures.verify(claim("/jobs/7", 42), signature + "==")).as("padded twice").isPresent();
        assertThat(signatures.verify(claim("/jobs/7", 42), otherUnusedBits)).as("unused bits set").contains(badSignature);
        assertThat(signatures.verify(claim("/jobs/7", 42), otherUnusedBits + "=")).as("unused bits set, padded").contains(badSignature);
        assertThat(signatures.verify(claim("/jobs/7", 42), signature)).isEmpty();
    }

    @Test
    void shortKeysAreRefused() {
        assertThatThrownBy(() -> new TokenSignatures(new byte[16])).hasMessageContaining("at least 32");
    }
}
