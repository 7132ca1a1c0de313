package dev.fencegate.loadtest.compare;

/** A gateway the comparison started: its process, for CPU and memory, and its own commit count. */
record RunningGateway(ManagedProcess process, FenceCommitCounter fenceCommits) {
}
