# Fencegate gateway image. Build: docker build -t fencegate:0.1.0 .
# It carries the gateway only. The load generator (/app/fencegate-loadtest.jar) and the in-memory
# store (/app/fencegate-demo.jar, 110 MB with its embedded PostgreSQL) are in the tools image, for
# the compose loadtest profile: docker build --target tools -t fencegate-tools:0.1.0 .

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -q -B -DskipTests package

FROM eclipse-temurin:17-jre AS runtime
RUN groupadd --system --gid 10001 fencegate \
    && useradd --system --uid 10001 --gid fencegate --no-create-home --shell /usr/sbin/nologin fencegate
WORKDIR /app

FROM runtime AS tools
COPY --from=build /src/loadtest/target/fencegate-loadtest.jar /app/fencegate-loadtest.jar
COPY --from=build /src/demo/target/fencegate-demo.jar /app/fencegate-demo.jar
USER fencegate

FROM runtime
COPY --from=build /src/gateway/target/fencegate.jar /app/fencegate.jar
# In a container the data port must be reachable from outside it; the admin port stays on
# loopback unless FENCEGATE_ADMIN_LISTEN (with FENCEGATE_ADMIN_TOKEN) says otherwise.
ENV FENCEGATE_LISTEN=0.0.0.0:8080
EXPOSE 8080 9090
USER fencegate
# Exec form: java is PID 1 and gets SIGTERM itself, so it drains before it exits.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/fencegate.jar"]
CMD ["serve"]
