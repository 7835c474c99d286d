package dev.membership.operations;

/**
 * Move partition {@code partition} of {@code group} to the live member {@code to} and
 * keep it there while that node is live and takes part, until unpinned
 * ({@link ClusterOperations#pin}).
 */
public record Pin(String group, int partition, String to, Requester requestedBy) implements OperationRequest {

	private static final String EXAMPLE = "{\"group\": \"tenants\", \"partition\": 3, \"to\": \"n2\"}";

	public Pin {
		group = Checks.named(group, "the partitioned group", EXAMPLE);
		partition = Checks.partition(partition, EXAMPLE);
		to = Checks.named(to, "the node to pin it to", EXAMPLE);
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "pin";
	}

}
