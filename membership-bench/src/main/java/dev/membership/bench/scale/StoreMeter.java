package dev.membership.bench.scale;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.mongodb.MongoCommandException;
import com.mongodb.event.CommandFailedEvent;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

import dev.membership.bench.support.SharedRuntimes.CallScope;

/**
 * What the shared client sends and reads, per node: a command listener that charges every
 * command to the node whose store call is running on the calling thread (the synchronous
 * driver reports a command on the thread that runs it), and counts the documents and
 * bytes of its reply. Commands made outside a store call go to {@link #unattributed()}.
 * Knows nothing of the store's methods: only command names and reply shapes.
 */
final class StoreMeter implements CommandListener {

	/** One node's counts; cumulative. */
	static final class NodeCounts extends CallScope {

		final AtomicLong commands = new AtomicLong();

		final AtomicLong documents = new AtomicLong();

		final AtomicLong bytes = new AtomicLong();

		final AtomicLong failures = new AtomicLong();

		Snapshot snapshot() {
			return new Snapshot(calls(), this.commands.get(), this.documents.get(), this.bytes.get(),
					this.failures.get());
		}

	}

	record Snapshot(long calls, long commands, long documents, long bytes, long failures) {

		Snapshot plus(Snapshot other) {
			return new Snapshot(this.calls + other.calls, this.commands + other.commands,
					this.documents + other.documents, this.bytes + other.bytes, this.failures + other.failures);
		}

		Snapshot minus(Snapshot before) {
			return new Snapshot(this.calls - before.calls, this.commands - before.commands,
					this.documents - before.documents, this.bytes - before.bytes, this.failures - before.failures);
		}

	}

	private final NodeCounts cluster = new NodeCounts();

	private final NodeCounts unattributed = new NodeCounts();

	private final ConcurrentLinkedQueue<Long> findNanos = new ConcurrentLinkedQueue<>();

	private volatile boolean recordingFinds;

	private final Map<String, LongAdder> byName = new ConcurrentHashMap<>();

	private final Map<String, LongAdder> failuresByKind = new ConcurrentHashMap<>();

	/**
	 * Every command of the client, whoever made it (its calls() stay 0: calls are counted
	 * per node).
	 */
	NodeCounts cluster() {
		return this.cluster;
	}

	/** Commands made outside any node's store call. */
	NodeCounts unattributed() {
		return this.unattributed;
	}

	/** Every command of the client so far, by name; cumulative. */
	Map<String, Long> byName() {
		Map<String, Long> counts = new TreeMap<>();
		this.byName.forEach((name, count) -> counts.put(name, count.sum()));
		return counts;
	}

	/** Failed commands so far, by command name and exception type; cumulative. */
	Map<String, Long> failuresByKind() {
		Map<String, Long> counts = new TreeMap<>();
		this.failuresByKind.forEach((kind, count) -> counts.put(kind, count.sum()));
		return counts;
	}

	/** Starts recording the duration of every {@code find} command afresh. */
	void recordFinds() {
		this.findNanos.clear();
		this.recordingFinds = true;
	}

	/**
	 * Stops recording and returns the durations of the {@code find} commands since
	 * {@link #recordFinds()}.
	 */
	ConcurrentLinkedQueue<Long> stopRecordingFinds() {
		this.recordingFinds = false;
		return this.findNanos;
	}

	@Override
	public void commandStarted(CommandStartedEvent event) {
		this.cluster.commands.incrementAndGet();
		counts().commands.incrementAndGet();
		this.byName.computeIfAbsent(event.getCommandName(), (name) -> new LongAdder()).increment();
	}

	@Override
	public void commandSucceeded(CommandSucceededEvent event) {
		BsonDocument reply = event.getResponse();
		long documents = documentsIn(reply);
		long bytes = bytesOf(reply);
		NodeCounts node = counts();
		node.documents.addAndGet(documents);
		node.bytes.addAndGet(bytes);
		this.cluster.documents.addAndGet(documents);
		this.cluster.bytes.addAndGet(bytes);
		if (this.recordingFinds && "find".equals(event.getCommandName())) {
			this.findNanos.add(event.getElapsedTime(TimeUnit.NANOSECONDS));
		}
	}

	@Override
	public void commandFailed(CommandFailedEvent event) {
		this.cluster.failures.incrementAndGet();
		counts().failures.incrementAndGet();
		Throwable cause = event.getThrowable();
		String why = event.getCommandName() + ": " + ((cause != null) ? cause.getClass().getSimpleName() : "?")
				+ ((cause instanceof MongoCommandException command) ? " " + command.getErrorCodeName() : "");
		this.failuresByKind.computeIfAbsent(why, (k) -> new LongAdder()).increment();
	}

	private NodeCounts counts() {
		CallScope scope = CallScope.current();
		return (scope instanceof NodeCounts node) ? node : this.unattributed;
	}

	/**
	 * Documents a reply carries: the batch of a cursor reply ({@code find},
	 * {@code getMore}, {@code aggregate}), or the {@code value} of a
	 * {@code findAndModify} when it is not null.
	 */
	static long documentsIn(BsonDocument reply) {
		if (reply == null) {
			return 0;
		}
		BsonValue cursor = reply.get("cursor");
		if (cursor != null && cursor.isDocument()) {
			BsonDocument c = cursor.asDocument();
			BsonValue batch = c.containsKey("firstBatch") ? c.get("firstBatch") : c.get("nextBatch");
			return (batch instanceof BsonArray array) ? array.size() : 0;
		}
		BsonValue value = reply.get("value");
		return (value != null && value.isDocument()) ? 1 : 0;
	}

	/**
	 * The reply's size: the driver hands listeners the reply as a {@link RawBsonDocument}
	 * (its encoded bytes), so every reply is measured exactly and without encoding it
	 * again.
	 */
	static long bytesOf(BsonDocument reply) {
		if (reply instanceof RawBsonDocument raw) {
			return raw.getByteBuffer().remaining();
		}
		return (reply != null)
				? new RawBsonDocument(reply, new org.bson.codecs.BsonDocumentCodec()).getByteBuffer().remaining() : 0;
	}

}
