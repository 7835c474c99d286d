package dev.membership.operations;

/**
 * Resign the leadership of the plain group {@code group}, which this node leads
 * ({@link ClusterOperations#resign}).
 */
public record Resign(String group, Requester requestedBy) implements OperationRequest {

	private static final String EXAMPLE = "{\"group\": \"reports\"}";

	public Resign {
		group = Checks.named(group, "the group to resign", EXAMPLE);
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "resign";
	}

}
