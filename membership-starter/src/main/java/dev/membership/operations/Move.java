package dev.membership.operations;

/**
 * Move partition {@code partition} of {@code group} to the live member {@code to} at the
 * coordinator's next placement, taking off a pin it had ({@link ClusterOperations#move}).
 */
public record Move(String group, int partition, String to, Requester requestedBy) implements OperationRequest {

	private static final String EXAMPLE = "{\"group\": \"tenants\", \"partition\": 3, \"to\": \"n2\"}";

	public Move {
		group = Checks.named(group, "the partitioned group", EXAMPLE);
		partition = Checks.partition(partition, EXAMPLE);
		to = Checks.named(to, "the node to move it to", EXAMPLE);
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "move";
	}

}
