package dev.membership.engine;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.operations.OperationRequest;
import dev.membership.operations.Requester;

/**
 * Records each operator's action with who asked, carried out or refused: one INFO line in the node's log, and a run
 * of the history that began and ended at once ({@code operator#drain}, with {@code requestedBy} and
 * {@code requestedFrom}).
 */
final class OperatorRecord {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	/** What an action did: its answer, the epoch it handed over (0: none), and what the log says (null: the answer). */
	record Done<T>(T result, long epoch, @Nullable String said) {
	}

	private final String nodeId;

	private final RunHistory history;

	OperatorRecord(String nodeId, RunHistory history) {
		this.nodeId = nodeId;
		this.history = history;
	}

	static <T> Done<T> done(T result, long epoch) {
		return new Done<>(result, epoch, null);
	}

	/** Carries out {@code request}'s {@code action} ({@code operator#<action>} in the history) on {@code group}. */
	<T> T carry(OperationRequest request, String action, String group, @Nullable Integer partition,
			Supplier<Done<T>> act) {
		return carry(request.requestedBy(), "operator#" + action, group, partition, act);
	}

	/**
	 * Carries out {@code act}, recorded as {@code job} asked by {@code by}; a refusal ({@link IllegalArgumentException},
	 * nothing changed) is recorded as an {@code error} with its reason, and thrown on.
	 */
	<T> T carry(Requester by, String job, String group, @Nullable Integer partition, Supplier<Done<T>> act) {
		Done<T> done;
		try {
			done = act.get();
		}
		catch (IllegalArgumentException ex) {
			log.info("Membership node {} refused {} asked by {}: {}", this.nodeId, job, by, ex.getMessage());
			this.history.action(job, by, this.nodeId, group, partition, 0, ex);
			throw ex;
		}
		log.info("Membership node {} carries out {} asked by {}: {}", this.nodeId, job, by,
				(done.said() != null) ? done.said() : done.result());
		this.history.action(job, by, this.nodeId, group, partition, done.epoch(), null);
		return done.result();
	}

}
