package dev.membership.operations;

/**
 * End a pause of rebalancing, on the coordinator ({@link ClusterOperations#resume}).
 */
public record Resume(Requester requestedBy) implements OperationRequest {

	public Resume {
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "resume";
	}

}
