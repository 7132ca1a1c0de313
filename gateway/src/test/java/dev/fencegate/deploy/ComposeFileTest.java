package dev.fencegate.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.fencegate.config.GatewayOptions;
import dev.fencegate.config.HostPort;
import dev.fencegate.config.Setting;
import dev.fencegate.http.S3Requests;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No Docker engine runs in the build, so the wiring of docker-compose.yml is checked here: what
 * depends on what, which service and port each URL names, pinned images, and that every gateway
 * service's settings pass the gateway's own validation.
 */
class ComposeFileTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern URL = Pattern.compile("(?:https?|jdbc:postgresql)://([A-Za-z0-9.-]+):([0-9]+)");
    private static final Pattern DEFAULTED = Pattern.compile("\\$\\{([A-Z0-9_]+):-([^}]*)}");
    private static final Duration DRAIN = Duration.ofSeconds(10);

    private static JsonNode services;

    @BeforeAll
    static void parse() throws IOException {
        JsonNode compose = new YAMLMapper().readTree(ROOT.resolve("docker-compose.yml").toFile());
        services = compose.get("services");
        assertThat(services).as("services in docker-compose.yml").isNotNull();
        // Debian's docker-compose 1.29 rejects these newer keys.
        assertThat(compose.has("name")).as("top-level name").isFalse();
    }

    @Test
    void everyDependencyExistsHasAHealthcheckAndIsAwaitedHealthy() {
        services.fields().forEachRemaining(service -> service.getValue().path("depends_on").fields().forEachRemaining(dependency -> {
            String what = service.getKey() + " -> " + dependency.getKey();
            assertThat(services.has(dependency.getKey())).as(what + ": no such service").isTrue();
            JsonNode target = services.get(dependency.getKey());
            if (target.path("restart").asText().equals("no")) {
                // A one-shot (the bucket's creation) is awaited to its successful end.
                assertThat(dependency.getValue().path("condition").asText()).as(what).isEqualTo("service_completed_successfully");
                return;
            }
            assertThat(target.path("healthcheck").path("test").isMissingNode())
                    .as(what + ": the target has no healthcheck").isFalse();
            assertThat(dependency.getValue().path("condition").asText()).as(what).isEqualTo("service_healthy");
            assertThat(dependency.getValue().has("required")).as(what + ": depends_on.required").isFalse();
        }));
        assertThat(services.path("gateway").path("depends_on").has("postgres")).isTrue();
        assertThat(services.path("gateway").path("depends_on").has("store")).isTrue();
        services.forEach(service -> assertThat(service.path("healthcheck").has("start_interval")).isFalse());
    }

    @Test
    void theGatewayForwardsToTheS3StoreServiceAndPort() {
        URI upstream = URI.create(environment("gateway").get("FENCEGATE_UPSTREAM"));

        assertThat(upstream.getHost()).isEqualTo("store");
        assertThat(services.path("store").path("image").asText()).startsWith("versity/versitygw:");
        assertThat(exposed("store")).contains(String.valueOf(upstream.getPort()));
        assertThat(text(services.path("store").path("command"))).contains(":" + upstream.getPort());
    }

    @Test
    void theGatewayKeepsItsFencesInThePostgresService() {
        Map<String, String> gateway = environment("gateway");
        Map<String, String> postgres = environment("postgres");
        Matcher url = Pattern.compile("jdbc:postgresql://([^:/]+):([0-9]+)/(\\w+)").matcher(gateway.get("FENCEGATE_DB_URL"));

        assertThat(url.matches()).as(gateway.get("FENCEGATE_DB_URL")).isTrue();
        assertThat(url.group(1)).isEqualTo("postgres");
        assertThat(services.path("postgres").path("image").asText()).startsWith("postgres:");
        assertThat(exposed("postgres")).contains(url.group(2));
        assertThat(url.group(3)).isEqualTo(postgres.get("POSTGRES_DB"));
        assertThat(gateway.get("FENCEGATE_DB_USER")).isEqualTo(postgres.get("POSTGRES_USER"));
        assertThat(gateway.get("FENCEGATE_DB_PASSWORD")).isEqualTo(postgres.get("POSTGRES_PASSWORD"));
    }

    /** Every host:port a service talks to (upstreams, database, workers' and probes' URLs) is a service exposing that port. */
    @Test
    void everyUrlNamesAServiceAndAPortItExposes() {
        services.fields().forEachRemaining(service -> {
            Matcher url = URL.matcher(text(service.getValue()));
            while (url.find()) {
                String host = url.group(1);
                if (!host.equals("127.0.0.1") && !host.equals("localhost")) {
                    assertThat(services.has(host)).as(service.getKey() + " names " + url.group()).isTrue();
                    assertThat(exposed(host)).as(service.getKey() + " names " + url.group()).contains(url.group(2));
                }
            }
        });
    }

    /** The settings the containers get are exactly what the gateway validates at start (an admin port off loopback needs a token...). */
    @Test
    void everyGatewayServicesSettingsPassTheGatewaysValidation() {
        List<String> gateways = gatewayServices();
        assertThat(gateways).contains("gateway", "loadtest-gateway");
        for (String name : gateways) {
            Map<String, String> env = environment(name);
            assertThatCode(() -> new GatewayOptions().toConfig(env)).as(name).doesNotThrowAnyException();
            String admin = env.getOrDefault(Setting.ADMIN_LISTEN.variable(), Setting.ADMIN_LISTEN.defaultValue());
            assertThat(text(services.get(name).path("healthcheck").path("test")))
                    .as(name + ": the healthcheck asks /readyz on the admin port")
                    .contains("/dev/tcp/127.0.0.1/" + HostPort.parse(admin).port()).contains("/readyz");
            assertThat(seconds(services.get(name).path("stop_grace_period").asText("10s")))
                    .as(name + ": stop_grace_period must outlast the 10 s drain").isGreaterThan(DRAIN);
        }
    }

    @Test
    void everyImageIsPinnedToATag() throws IOException {
        List<String> images = new ArrayList<>();
        services.forEach(service -> images.add(service.path("image").asText(null)));
        List<String> stages = new ArrayList<>();
        for (String line : Files.readAllLines(ROOT.resolve("Dockerfile"))) {
            if (line.startsWith("FROM ")) {
                String[] words = line.split("\\s+");
                if (!stages.contains(words[1])) {
                    images.add(words[1]); // not a stage built before it
                }
                if (words.length == 4 && words[2].equalsIgnoreCase("AS")) {
                    stages.add(words[3]);
                }
            }
        }
        images.removeIf(image -> image == null);
        assertThat(images).isNotEmpty().allSatisfy(image -> {
            String name = image.substring(image.lastIndexOf('/') + 1);
            assertThat(name).as(image + " has no tag").contains(":");
            assertThat(name.substring(name.indexOf(':') + 1)).as(image).isNotEmpty().isNotEqualTo("latest");
        });
    }

    @Test
    void theImagesFinalStageRunsJavaAsANonRootUserInExecForm() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("Dockerfile"));
        int lastFrom = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("FROM ")) {
                lastFrom = i;
            }
        }
        List<String> finalStage = lines.subList(lastFrom, lines.size());
        String user = instruction(finalStage, "USER");
        String entrypoint = instruction(finalStage, "ENTRYPOINT");

        assertThat(user).as("USER in the final stage").isNotNull().isNotIn("root", "0", "0:0", "root:root");
        assertThat(entrypoint).as("ENTRYPOINT in the final stage").isNotNull().startsWith("[");
        List<String> argv = new ArrayList<>();
        new YAMLMapper().readTree(entrypoint).forEach(arg -> argv.add(arg.asText()));
        assertThat(argv.get(0)).isEqualTo("java");
        assertThat(argv.subList(argv.indexOf("-jar"), argv.size())).startsWith("-jar", "/app/fencegate.jar");
        assertThat(finalStage).anyMatch(line -> line.startsWith("COPY --from=") && line.endsWith(" /app/fencegate.jar"));
        // The gateway's image carries the gateway only; the demo's jar alone is 110 MB.
        assertThat(finalStage).noneMatch(line -> line.startsWith("COPY") && line.matches(".*fencegate-(demo|loadtest)\\.jar$"));
    }

    /** The production jar has no store command: the loadtest profile's store and generator run from the tools image. */
    @Test
    void theLoadtestProfileRunsFromTheToolsStageWhichCarriesItsJars() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("Dockerfile"));
        int tools = lines.indexOf(lines.stream().filter(line -> line.matches("FROM \\S+ AS tools")).findFirst().orElseThrow());
        int next = tools + 1;
        while (next < lines.size() && !lines.get(next).startsWith("FROM ")) {
            next++;
        }
        List<String> stage = lines.subList(tools, next);
        assertThat(stage).anyMatch(line -> line.startsWith("COPY --from=") && line.endsWith(" /app/fencegate-demo.jar"))
                .anyMatch(line -> line.startsWith("COPY --from=") && line.endsWith(" /app/fencegate-loadtest.jar"));
        assertThat(instruction(stage, "USER")).as("USER in the tools stage").isNotNull().isNotIn("root", "0");
        for (String name : List.of("loadtest", "loadtest-store")) {
            assertThat(services.path(name).path("build").path("target").asText()).as(name).isEqualTo("tools");
            assertThat(services.path(name).path("image").asText()).as(name).startsWith("fencegate-tools:");
        }
    }

    /**
     * The demo's workers write through the gateway's default store kind (s3-path), which refuses a
     * form-typed write: curl's {@code --data-binary} sends one unless the command names a type.
     * Each worker's PUT names a type the gateway passes, and waits for the bucket it writes into.
     */
    @Test
    void theDemoWorkersWritesNameABodyTypeTheGatewayPassesAndWaitForTheBucket() {
        Pattern type = Pattern.compile("-H \"Content-Type: ([^\"]+)\"");
        for (String worker : List.of("worker-a", "worker-b")) {
            String command = text(services.path(worker).path("command"));
            assertThat(command).as(worker).contains("-X PUT").contains("--data-binary");
            Matcher named = type.matcher(command.replace("\\\"", "\""));
            assertThat(named.find()).as(worker + ": a Content-Type on the PUT").isTrue();
            assertThat(S3Requests.formBody("PUT", List.of(named.group(1)), false)).as(worker).isEmpty();
            assertThat(services.path(worker).path("depends_on").has("bucket")).as(worker + " waits for the bucket").isTrue();
        }
    }

    @Test
    void theDemoAndLoadtestProfilesExistAndTheBaseServicesNeedNone() {
        Map<String, List<String>> profiles = new HashMap<>();
        services.fields().forEachRemaining(service -> service.getValue().path("profiles")
                .forEach(profile -> profiles.computeIfAbsent(profile.asText(), p -> new ArrayList<>()).add(service.getKey())));

        assertThat(profiles).containsKeys("demo", "loadtest");
        assertThat(profiles.get("demo")).contains("worker-a", "worker-b");
        assertThat(profiles.get("loadtest")).contains("loadtest");
        assertThat(text(services.path("loadtest"))).contains("/app/fencegate-loadtest.jar").contains("run").contains("--url");
        assertThat(text(services.path("loadtest-store"))).contains("/app/fencegate-demo.jar").contains("store");
        for (String base : List.of("postgres", "store", "bucket", "gateway")) {
            assertThat(services.path(base).has("profiles")).as(base + " must start without a profile").isFalse();
        }
    }

    private static List<String> gatewayServices() {
        List<String> names = new ArrayList<>();
        services.fields().forEachRemaining(service -> {
            if (environment(service.getKey()).containsKey("FENCEGATE_UPSTREAM")) {
                names.add(service.getKey());
            }
        });
        return names;
    }

    /** The service's environment as the container sees it, with ${VAR:-default} at its default. */
    private static Map<String, String> environment(String service) {
        Map<String, String> env = new HashMap<>();
        JsonNode node = services.path(service).path("environment");
        if (node.isArray()) {
            node.forEach(entry -> env.put(entry.asText().split("=", 2)[0], entry.asText().split("=", 2)[1]));
        } else {
            node.fields().forEachRemaining(entry -> env.put(entry.getKey(), entry.getValue().asText()));
        }
        env.replaceAll((name, value) -> DEFAULTED.matcher(value).replaceAll("$2").replace("$$", "$"));
        return env;
    }

    private static List<String> exposed(String service) {
        List<String> ports = new ArrayList<>();
        services.path(service).path("expose").forEach(port -> ports.add(port.asText()));
        return ports;
    }

    private static String text(JsonNode node) {
        return node.toString().replace("$$", "$");
    }

    private static String instruction(List<String> stage, String keyword) {
        String found = null;
        for (String line : stage) {
            if (line.startsWith(keyword + " ")) {
                found = line.substring(keyword.length() + 1).trim();
            }
        }
        return found;
    }

    private static Duration seconds(String composeDuration) {
        assertThat(composeDuration).matches("[0-9]+s");
        return Duration.ofSeconds(Long.parseLong(composeDuration.substring(0, composeDuration.length() - 1)));
    }
}
