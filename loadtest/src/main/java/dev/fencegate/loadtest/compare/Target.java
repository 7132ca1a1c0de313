package dev.fencegate.loadtest.compare;

import java.net.URI;
import java.util.Optional;

/** One thing the comparison sends load to; a gateway target carries its gateway for sampling. */
record Target(String id, String store, Route route, URI url, Optional<RunningGateway> gateway) {

    String name() {
        return store + " " + route.label();
    }

    /**
     * The job scope of the {@code job-objects} workload: below a target's prefix, each resource
     * is a job, and a new object under it is fenced as a write to the job.
     */
    static final String JOB_SCOPES = "/loadtest/{target}/{job}/**";
    /** Where a gateway with {@link #JOB_SCOPES} keeps its fences. */
    static final String JOB_SCOPES_SCHEMA = "fencegate_job_scopes";

    /** Each target writes its own resources, so two gateways never share fence rows. */
    String pathPrefix() {
        return "/loadtest/" + id;
    }
}
