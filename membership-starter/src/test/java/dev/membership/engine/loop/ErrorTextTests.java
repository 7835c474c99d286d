package dev.membership.engine.loop;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the run history keeps of an error: the class, and a message without credentials,
 * at most 300 characters.
 */
class ErrorTextTests {

	private final ErrorText messages = new ErrorText(true);

	@Test
	void credentialsInAUriAreTakenOut() {
		assertThat(this.messages.of(new IllegalStateException(
				"Timed out connecting to mongodb://app:s3cr3t@db1:27017,db2:27017/app?authSource=admin")))
			.isEqualTo("IllegalStateException: Timed out connecting to mongodb://***@db1:27017,db2:27017/app"
					+ "?authSource=admin");
		assertThat(ErrorText.clean("postgresql://user@host/db and https://u:p@example.com/x"))
			.isEqualTo("postgresql://***@host/db and https://***@example.com/x");
		assertThat(ErrorText.clean("mongodb://app:pa/ss@db1/app")).as("a password with a slash")
			.isEqualTo("mongodb://***@db1/app");
	}

	@Test
	void theValuesOfPasswordsSecretsAndTokensAreTakenOut() {
		assertThat(ErrorText.clean("jdbc:postgresql://db/app?user=app&password=hunter2&ssl=true"))
			.isEqualTo("jdbc:postgresql://db/app?user=app&password=***&ssl=true");
		assertThat(ErrorText.clean("PASSWORD = 'hunter2', secret: abc123, token=eyJh.x.y; apiKey=\"k1\""))
			.isEqualTo("PASSWORD = '***', secret: ***, token=***; apiKey=\"***\"");
		assertThat(ErrorText.clean("{\"password\":\"hunter2\",\"user\":\"app\"}"))
			.isEqualTo("{\"password\":\"***\",\"user\":\"app\"}");
		assertThat(ErrorText.clean("password: \"correct horse battery\" rejected"))
			.isEqualTo("password: \"***\" rejected");
		assertThat(ErrorText.clean("401 for Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.x and Basic dXNlcjpwYXNz"))
			.isEqualTo("401 for Authorization: Bearer *** and Basic ***");
		assertThat(ErrorText.clean("basic checks failed")).isEqualTo("basic checks failed");
		assertThat(ErrorText.clean("no disk left on /var/lib")).isEqualTo("no disk left on /var/lib");
	}

	@Test
	void onlyTheFirstLineIsKeptAndAtMost300CharactersInAll() {
		assertThat(this.messages.of(new RuntimeException("first line\nsecond line: password=x")))
			.isEqualTo("RuntimeException: first line");
		assertThat(this.messages.of(new RuntimeException("x".repeat(1000)))).hasSize(ErrorText.MAX_LENGTH)
			.startsWith("RuntimeException: xxx");
		assertThat(this.messages.of(new RuntimeException((String) null))).isEqualTo("RuntimeException");
	}

	@Test
	void withClassOnlyTheMessageIsNeverKept() {
		ErrorText classOnly = new ErrorText(false);
		assertThat(classOnly.of(new IllegalStateException("anything at all"))).isEqualTo("IllegalStateException");
		assertThat(classOnly.of(new Exception("anonymous") {
		})).isEqualTo(ErrorTextTests.class.getName() + "$1");
		assertThat(classOnly.of(null)).isNull();
	}

}
