package dev.fencegate;

import dev.fencegate.config.EffectiveSettings;
import dev.fencegate.config.GatewayConfig;
import dev.fencegate.config.GatewayOptions;
import dev.fencegate.config.Limits;
import dev.fencegate.config.SafetyConfig;
import dev.fencegate.config.ScopeConfig;
import dev.fencegate.config.Setting;
import dev.fencegate.config.StoreKind;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.TokenSignatures;
import dev.fencegate.http.ClaimRules;
import dev.fencegate.http.FencingHeaders;
import dev.fencegate.http.Outcome;
import dev.fencegate.http.ResourcePaths;
import dev.fencegate.proxy.GatewayServer;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What a token issuer runs (or reimplements) to sign a grant for a gateway started with
 * --token-key-file. The gateway checks the signature against the key it fences the write under,
 * which is not always the path written ({@code /b/dir/} is fenced as {@code /b/dir}, a part as its
 * job scope, a virtual-hosted object under its bucket), so the key is made here by the data
 * port's own rules, read from the gateway's settings as {@code serve} reads them.
 */
@Command(name = "sign", mixinStandardHelpOptions = true,
        description = {"Print the Fencing-Token-Signature for a token granted on the resource a write is fenced under.",
                "Give the gateway's own settings (flags, FENCEGATE_* or --config, as for serve): the store kind,"
                        + " --virtual-host-domains, --upstream, --scopes and --unscoped-writes decide the key signed,"
                        + " which is named on stderr. Exit 2 when the gateway would refuse the write."})
public final class SignCommand implements Callable<Integer> {

    @Mixin
    GatewayOptions options;

    @Option(names = "--key-file", paramLabel = "FILE", description = "The file holding the shared signing key (default: the gateway's --token-key-file).")
    String keyFile;

    @Option(names = "--resource", required = true, paramLabel = "PATH",
            description = "The path a write sends, e.g. /data/jobs/50/part-0; what is signed is the key the gateway checks that write against.")
    String resource;

    @Option(names = "--host", paramLabel = "HOST", description = "The Host header the write sends; under s3-virtual-host it may name the bucket.")
    String host;

    @Option(names = "--token", required = true, paramLabel = "N", description = "The fencing token granted, spelt as the Fencing-Token header carries it.")
    String token;

    @Spec
    CommandSpec spec;

    private final Map<String, String> env;

    public SignCommand() {
        this(System.getenv());
    }

    /** With an environment of the caller's choosing, so tests need no real variables. */
    public SignCommand(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        EffectiveSettings settings;
        try {
            settings = options.settings(env);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return CheckConfigCommand.INVALID;
        }
        ClaimRules claims;
        TokenSignatures signatures;
        FencingToken granted;
        try {
            claims = claimRules(settings);
            String file = keyFile != null ? keyFile : settings.text(Setting.TOKEN_KEY_FILE);
            if (file.isEmpty()) {
                throw new IllegalArgumentException("--key-file: missing (expected the file holding the signing key,"
                        + " or the gateway's --token-key-file)");
            }
            signatures = new TokenSignatures(keyFrom(file));
            // Read as the gateway reads the header, so no spelling it refuses (08, +8) is signed.
            FencingHeaders.TokenParse parsed = FencingHeaders.token(List.of(token));
            if (parsed instanceof FencingHeaders.TokenParse.Refused) {
                throw new IllegalArgumentException("--token: '" + token + "' (expected a decimal from 1 to " + Long.MAX_VALUE
                        + " without sign or leading zero, as the gateway reads Fencing-Token)");
            }
            granted = ((FencingHeaders.TokenParse.Valid) parsed).token();
        } catch (IllegalArgumentException e) {
            err.println(settings.explain(e).getMessage());
            return CheckConfigCommand.INVALID;
        }
        ClaimRules.SignedKey signed = claims.keyToSign(resource, host);
        if (signed instanceof ClaimRules.SignedKey.Refused refused) {
            boolean hostMissing = host == null && refused.problem().outcome() == Outcome.AMBIGUOUS_HOST;
            err.println("--resource: the gateway refuses a write to " + write() + ": " + refused.problem().detail()
                    + (hostMissing ? " (give the write's Host in --host)" : ""));
            return CheckConfigCommand.INVALID;
        }
        ResourceKey key = ((ClaimRules.SignedKey.Checked) signed).key();
        // stdout carries the signature alone, as it always has, so $(fencegate sign ...) stays usable.
        spec.commandLine().getOut().println(signatures.sign(key, granted));
        err.println("signed token " + granted + " on " + key + describe(key));
        return 0;
    }

    /** Why the key is not the path given, where it is not. */
    private String describe(ResourceKey key) {
        boolean samePath = ResourcePaths.canonicalise(resource) instanceof ResourcePaths.PathParse.Canonical canonical
                && canonical.key().equals(key);
        return samePath ? "" : ", the key the gateway checks a write to " + write() + " against";
    }

    private String write() {
        return "'" + resource + "'" + (host == null ? "" : " with Host '" + host + "'");
    }

    /**
     * The data port's rules from the settings that name resources. Only these are read: an issuer
     * need not hold the database or TLS settings. The store's host, from --upstream, is added to the
     * domains a Host may not be below, as serve adds it; the path --upstream adds is sent to the
     * store in front of the target and is no part of the key.
     */
    private static ClaimRules claimRules(EffectiveSettings settings) {
        StoreKind kind = StoreKind.parse(settings.text(Setting.STORE_KIND));
        Limits limits = Limits.defaults().withStoreKind(kind, settings.text(Setting.VIRTUAL_HOST_DOMAINS))
                .withTemporaryNames(settings.bool(Setting.ALLOW_TEMPORARY_NAMES));
        Optional<String> upstreamHost = settings.text(Setting.UPSTREAM) == null ? Optional.empty()
                : Optional.ofNullable(settings.uri(Setting.UPSTREAM).getHost());
        if (upstreamHost.isPresent()) {
            GatewayConfig.requireNoPathForS3(settings.uri(Setting.UPSTREAM), limits);
        }
        ScopeConfig scopes = new ScopeConfig(settings.text(Setting.SCOPES), ScopeConfig.refuses(settings.text(Setting.UNSCOPED_WRITES)));
        return GatewayServer.claimRules(limits, upstreamHost, scopes, Optional.empty());
    }

    /** The key in {@code file}, read as the gateway reads its own; a bad one is named by the flag that gave it. */
    private byte[] keyFrom(String file) {
        try {
            return new SafetyConfig(false, false, 100_000, file).tokenKey().orElseThrow();
        } catch (IllegalArgumentException e) {
            if (keyFile == null) {
                throw e;
            }
            throw new IllegalArgumentException(e.getMessage().replaceFirst("^--token-key-file:", "--key-file:"), e);
        }
    }
}
