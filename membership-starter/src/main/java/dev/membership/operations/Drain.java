package dev.membership.operations;

/**
 * Drain this node: it hands over everything it holds and takes nothing until undrained
 * ({@link ClusterOperations#drain}).
 */
public record Drain(Requester requestedBy) implements OperationRequest {

	public Drain {
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "drain";
	}

}
