package dev.membership.operations;

/**
 * Release partition {@code partition} of the partitioned group {@code group}, which this
 * node owns ({@link ClusterOperations#release}).
 */
public record Release(String group, int partition, Requester requestedBy) implements OperationRequest {

	private static final String EXAMPLE = "{\"group\": \"tenants\", \"partition\": 3}";

	public Release {
		group = Checks.named(group, "the partitioned group", EXAMPLE);
		partition = Checks.partition(partition, EXAMPLE);
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "release";
	}

}
