package dev.fencegate;

import dev.fencegate.config.SafetyConfig;
import dev.fencegate.fence.FencingToken;
import dev.fencegate.fence.ResourceKey;
import dev.fencegate.fence.TokenSignatures;
import dev.fencegate.http.ResourcePaths;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** What a token issuer runs (or reimplements) to sign a grant for a gateway started with --token-key-file. */
@Command(name = "sign", mixinStandardHelpOptions = true,
        description = "Print the Fencing-Token-Signature for a token granted on a resource path.")
final class SignCommand implements Callable<Integer> {

    @Option(names = "--key-file", required = true, description = "The file holding the shared signing key.")
    String keyFile;

    @Option(names = "--resource", required = true, description = "The resource path, as the writes will send it.")
    String resource;

    @Option(names = "--token", required = true, description = "The fencing token granted.")
    long token;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!(ResourcePaths.canonicalise(resource) instanceof ResourcePaths.PathParse.Canonical canonical)) {
            throw new ParameterException(spec.commandLine(), "--resource: '" + resource + "' is refused by the gateway");
        }
        try {
            TokenSignatures signatures = new TokenSignatures(new SafetyConfig(false, false, 100_000, keyFile).tokenKey().orElseThrow());
            ResourceKey key = canonical.key();
            spec.commandLine().getOut().println(signatures.sign(key, new FencingToken(token)));
            return 0;
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
