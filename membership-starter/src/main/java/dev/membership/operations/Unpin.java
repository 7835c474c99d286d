package dev.membership.operations;

/**
 * Take the pin off partition {@code partition} of {@code group}
 * ({@link ClusterOperations#unpin}).
 */
public record Unpin(String group, int partition, Requester requestedBy) implements OperationRequest {

	private static final String EXAMPLE = "{\"group\": \"tenants\", \"partition\": 3}";

	public Unpin {
		group = Checks.named(group, "the partitioned group", EXAMPLE);
		partition = Checks.partition(partition, EXAMPLE);
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "unpin";
	}

}
