package dev.membership.mongo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import com.mongodb.MongoCommandException;
import com.mongodb.ServerAddress;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import dev.membership.spi.StoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The server's clock comes from {@code hello}, which every role answers on real MongoDB
 * (primary, secondary, {@code mongos}); servers that do not know it (before 4.4.2, the
 * stand-in) answer "command not found", and {@code isMaster} is asked from then on. The
 * stand-in only shows the second path, so both are given here.
 */
class ServerTimeTests {

	private static final Instant NOW = Instant.parse("2026-11-23T12:00:00.123Z");

	private final List<String> asked = new ArrayList<>();

	private Document answer(Document command, boolean knowsHello) {
		String name = command.keySet().iterator().next();
		this.asked.add(name);
		if (name.equals("hello") && !knowsHello) {
			throw new MongoCommandException(BsonDocument.parse("{ok: 0, code: 59, errmsg: 'no such command: hello'}"),
					new ServerAddress());
		}
		return new Document("ok", 1).append("localTime", Date.from(NOW));
	}

	@Test
	void aServerThatKnowsHelloIsAskedHello() {
		ServerTime time = new ServerTime();
		assertThat(time.ask((command) -> answer(command, true))).contains(NOW);
		assertThat(time.ask((command) -> answer(command, true))).contains(NOW);
		assertThat(this.asked).containsExactly("hello", "hello");
	}

	@Test
	void aServerThatDoesNotIsAskedIsMasterFromThenOn() {
		ServerTime time = new ServerTime();
		assertThat(time.ask((command) -> answer(command, false))).contains(NOW);
		assertThat(time.ask((command) -> answer(command, false))).contains(NOW);
		assertThat(this.asked).containsExactly("hello", "isMaster", "isMaster");
	}

	@Test
	void behindAMongosThereIsNoSampleSinceTheRoutersClockIsNotTheOneThatStampsWrites() {
		ServerTime time = new ServerTime();
		Document router = new Document("ismaster", true).append("msg", "isdbgrid")
			.append("localTime", java.util.Date.from(NOW.plusSeconds(3)))
			.append("ok", 1);
		assertThat(time.ask((command) -> router)).isEmpty();
	}

	@Test
	void anyOtherFailureOrAReplyWithoutTheTimeIsNotHidden() {
		ServerTime time = new ServerTime();
		assertThatExceptionOfType(MongoCommandException.class).isThrownBy(() -> time.ask((command) -> {
			throw new MongoCommandException(BsonDocument.parse("{ok: 0, code: 13, errmsg: 'unauthorized'}"),
					new ServerAddress());
		}));
		assertThatExceptionOfType(StoreException.class).isThrownBy(() -> time.ask((command) -> new Document("ok", 1)));
	}

}
