package dev.membership.engine.history;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.loop.ErrorText;
import dev.membership.operations.OperationRequest;
import dev.membership.operations.Requester;
import dev.membership.spi.MembershipSettings;

/**
 * Records each operator's action with who asked, carried out or refused: one INFO line in
 * the node's log, and a run of the history that began and ended at once
 * ({@code operator#drain}, with {@code requestedBy} and {@code requestedFrom}).
 */
public final class OperatorRecord {

	private static final Logger log = LoggerFactory.getLogger(OperatorRecord.class);

	/**
	 * What an action did: its answer, the epoch it handed over (0: none), and what the
	 * log says (null: the answer).
	 */
	public record Done<T>(T result, long epoch, @Nullable String said) {
	}

	private final String nodeId;

	private final RunHistory history;

	public OperatorRecord(String nodeId, RunHistory history) {
		this.nodeId = nodeId;
		this.history = history;
	}

	public static <T> Done<T> done(T result, long epoch) {
		return new Done<>(result, epoch, null);
	}

	/**
	 * Carries out {@code request} on {@code group}: {@code operator#<action>} in the
	 * history, with its {@code target} (a live member) once carried out:
	 * {@code operator#move(n2)}. A refusal keeps the fixed name, so that what a caller
	 * sends never makes new names.
	 */
	public <T> T carry(OperationRequest request, @Nullable String target, String group, @Nullable Integer partition,
			Supplier<Done<T>> act) {
		String job = "operator#" + request.action();
		return carry(request.requestedBy(), job, (target != null) ? job + "(" + target + ")" : job, group, partition,
				act);
	}

	/**
	 * Carries out {@code act}, recorded as {@code done} ({@code refused} when it fails)
	 * asked by {@code by}; a refusal ({@link IllegalArgumentException}: nothing changed)
	 * or any other failure is recorded as an {@code error} with its reason, and thrown
	 * on.
	 */
	public <T> T carry(Requester by, String refused, String done, String group, @Nullable Integer partition,
			Supplier<Done<T>> act) {
		Done<T> carried;
		try {
			carried = act.get();
		}
		catch (RuntimeException ex) {
			log.info("Membership node {} refused {} asked by {}: {}", this.nodeId, refused, by,
					ErrorText.printable(ex.getMessage()));
			// under the fixed name, the default group and no partition: the group and
			// partition a caller names (an unknown one, one out of range) never make a
			// new
			// ring of the history; the reason says what was asked
			this.history.action(refused, by, this.nodeId, MembershipSettings.DEFAULT_GROUP, null, 0, ex);
			throw ex;
		}
		log.info("Membership node {} carries out {} asked by {}: {}", this.nodeId, done, by,
				(carried.said() != null) ? carried.said() : carried.result());
		this.history.action(done, by, this.nodeId, group, partition, carried.epoch(), null);
		return carried.result();
	}

}
