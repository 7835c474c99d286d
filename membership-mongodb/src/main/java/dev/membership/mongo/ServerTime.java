package dev.membership.mongo;

import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import java.util.function.Function;

import com.mongodb.MongoCommandException;
import org.bson.Document;

import dev.membership.spi.StoreException;

/**
 * The server's clock from its {@code hello} reply, which every role answers; servers
 * before 4.4.2 and some wire-compatible servers only know the legacy {@code isMaster},
 * which is used from the first "command not found" on. A {@code mongos}
 * ({@code msg: "isdbgrid"}) answers with its own host's clock, while the shard's primary
 * stamps every write ({@code $currentDate}): a skew between them above half the safety
 * margin would read as a clock jump. Behind a router there is no sample here, and the
 * node takes its samples from its writes' stamps.
 */
final class ServerTime {

	private static final int COMMAND_NOT_FOUND = 59;

	private static final Document HELLO = new Document("hello", 1);

	private static final Document IS_MASTER = new Document("isMaster", 1);

	private volatile boolean helloUnsupported;

	Optional<Instant> ask(Function<Document, Document> runCommand) {
		Document reply = null;
		if (!this.helloUnsupported) {
			try {
				reply = runCommand.apply(HELLO);
			}
			catch (MongoCommandException ex) {
				if (ex.getErrorCode() != COMMAND_NOT_FOUND) {
					throw ex;
				}
				this.helloUnsupported = true;
			}
		}
		if (reply == null) {
			reply = runCommand.apply(IS_MASTER);
		}
		if (isRouter(reply)) {
			return Optional.empty();
		}
		Date localTime = reply.getDate("localTime");
		if (localTime == null) {
			throw new StoreException("The server's hello reply has no localTime", null);
		}
		return Optional.of(localTime.toInstant());
	}

	/** Whether the reply comes from a {@code mongos}, as MongoDB's drivers tell it. */
	static boolean isRouter(Document reply) {
		return "isdbgrid".equals(reply.get("msg"));
	}

}
