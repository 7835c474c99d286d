package dev.membership.operations;

/**
 * Undo a drain of this node ({@link ClusterOperations#undrain}).
 */
public record Undrain(Requester requestedBy) implements OperationRequest {

	public Undrain {
		requestedBy = Checks.requester(requestedBy);
	}

	@Override
	public String action() {
		return "undrain";
	}

}
