package dev.membership.operations;

/**
 * One command of {@link ClusterOperations}, with who asked for it. Each names its action
 * as the history and {@code POST /actuator/cluster/<action>} do.
 */
public sealed interface OperationRequest
		permits Resign, Release, Drain, Undrain, HandOver, Move, Pin, Unpin, Pause, Resume {

	/** Who asked: recorded with the action in the run history and the log. */
	Requester requestedBy();

	/** The action's name: {@code resign}, {@code drain}, {@code move}, ... */
	String action();

}
