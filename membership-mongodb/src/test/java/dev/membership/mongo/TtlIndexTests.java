package dev.membership.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoNamespace;
import com.mongodb.ServerAddress;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The TTL index of node documents follows {@code dead-node-retention}: real MongoDB
 * refuses to create it again with another TTL (error 85) and takes the new one through
 * {@code collMod}; only that conflict, and an index of the name on other keys (86), are
 * tolerated. The stand-in knows neither, so the server's answers are given here.
 */
class TtlIndexTests {

	private static final MongoNamespace NODES = new MongoNamespace("app", "clusternodes");

	private final List<Document> commands = new ArrayList<>();

	private static MongoCommandException error(int code, String message) {
		return new MongoCommandException(BsonDocument.parse("{ok: 0, code: " + code + ", errmsg: '" + message + "'}"),
				new ServerAddress());
	}

	private void createWhile(RuntimeException answer) {
		NodeDocuments.createTtlIndex(Duration.ofMinutes(5), (keys, options) -> {
			if (answer != null) {
				throw answer;
			}
		}, (command) -> {
			this.commands.add(command);
			return new Document("ok", 1);
		}, NODES);
	}

	@Test
	void aNewIndexNeedsNothingMore() {
		createWhile(null);
		assertThat(this.commands).isEmpty();
	}

	@Test
	void anIndexWithAnotherTtlIsChangedWithCollMod() {
		createWhile(error(85, "An equivalent index already exists with the same name but different options"));
		assertThat(this.commands).containsExactly(Document.parse(
				"{collMod: 'clusternodes', index: {keyPattern: {updatedAt: 1}, expireAfterSeconds: {$numberLong: '300'}}}"));
	}

	@Test
	void anIndexOfTheNameOnOtherKeysIsLeftAlone() {
		createWhile(error(86, "Index with name: membership_node_ttl already exists with different key"));
		assertThat(this.commands).isEmpty();
	}

	@Test
	void anyOtherFailureIsNotHidden() {
		assertThatExceptionOfType(MongoCommandException.class)
			.isThrownBy(() -> createWhile(error(13, "not authorized on app to execute command")))
			.satisfies((ex) -> assertThat(ex.getErrorCode()).isEqualTo(13));
		assertThat(this.commands).isEmpty();
	}

	@Test
	void aCollModThatFailsKeepsTheOldTtlWithoutFailingTheStart() {
		assertThatNoException()
			.isThrownBy(() -> NodeDocuments.createTtlIndex(Duration.ofMinutes(5), (keys, options) -> {
				throw error(85, "different options");
			}, (command) -> {
				throw error(13, "not authorized on app to execute command collMod");
			}, NODES));
	}

}
