package dev.membership.mongo;

import java.time.Instant;
import java.util.Date;
import java.util.function.Function;

import com.mongodb.MongoCommandException;
import org.bson.Document;

import dev.membership.spi.StoreException;

/**
 * The server's clock from its {@code hello} reply, which every role answers (primary, secondary, {@code mongos});
 * servers before 4.4.2 and some wire-compatible servers only know the legacy {@code isMaster}, which is used from the
 * first "command not found" on.
 */
final class ServerTime {

	private static final int COMMAND_NOT_FOUND = 59;

	private static final Document HELLO = new Document("hello", 1);

	private static final Document IS_MASTER = new Document("isMaster", 1);

	private volatile boolean helloUnsupported;

	Instant ask(Function<Document, Document> runCommand) {
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
		Date localTime = reply.getDate("localTime");
		if (localTime == null) {
			throw new StoreException("The server's hello reply has no localTime", null);
		}
		return localTime.toInstant();
	}

}
