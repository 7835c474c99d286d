package dev.membership.operations;

/**
 * Hand the plain group {@code group}, which this node leads, to the live member
 * {@code to} ({@link ClusterOperations#handOver}).
 */
public record HandOver(String group, String to, Requester requestedBy) implements OperationRequest {

	private static final String EXAMPLE = "{\"group\": \"reports\", \"to\": \"n2\"}";

	public HandOver {
		group = Checks.named(group, "the group to hand over", EXAMPLE);
		to = Checks.named(to, "the node to hand it to", EXAMPLE);
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "handover";
	}

}
