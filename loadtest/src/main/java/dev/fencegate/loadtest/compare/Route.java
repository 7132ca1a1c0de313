package dev.fencegate.loadtest.compare;

/** How the load reaches a store. */
public enum Route {
    DIRECT("direct"),
    GATEWAY("via gateway"),
    NGINX("via nginx");

    private final String label;

    Route(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
