package dev.membership.jdbc;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.membership.leadership.FencedOutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Fenced writes to an application's own table, on a real PostgreSQL server. */
class JdbcEpochFenceTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private JdbcClient jdbc;

	@BeforeEach
	void table() {
		this.jdbc = JdbcClient.create(postgres.dataSource());
		this.jdbc.sql("DROP TABLE IF EXISTS invoices").update();
		this.jdbc.sql("CREATE TABLE invoices (id bigint PRIMARY KEY, status text, fence bigint)").update();
	}

	@Test
	void anOlderTermsUpsertAfterANewerOnesChangesNothingAndSaysWhichEpochWon() {
		JdbcFencedWriteResult first = JdbcEpochFence.of("billing", 7)
			.upsert(this.jdbc, "invoices", Map.of("id", 1L), Map.of("status", "draft"));
		assertThat(first.applied()).isTrue();
		assertThat(first.inserted()).isTrue();
		JdbcFencedWriteResult newer = JdbcEpochFence.of("billing", 8)
			.upsert(this.jdbc, "invoices", Map.of("id", 1L), Map.of("status", "sent"));
		assertThat(newer.applied()).isTrue();
		assertThat(newer.inserted()).isFalse();
		JdbcFencedWriteResult late = JdbcEpochFence.of("billing", 7)
			.upsert(this.jdbc, "invoices", Map.of("id", 1L), Map.of("status", "void"));
		assertThat(late.applied()).isFalse();
		assertThat(late.supersededBy()).hasValue(8);
		assertThatExceptionOfType(FencedOutException.class)
			.isThrownBy(() -> late.orThrow(JdbcEpochFence.of("billing", 7)))
			.withMessageContaining("epoch 8");
		assertThat(status(1)).isEqualTo("sent");
	}

	@Test
	void anUpdateWritesUnderItsEpochOrIsFencedOut() {
		this.jdbc.sql("INSERT INTO invoices (id, status) VALUES (2, 'draft')").update();
		JdbcFencedWriteResult unfenced = JdbcEpochFence.of("billing", 3)
			.update(this.jdbc, "invoices", Map.of("status", "sent"), Map.of("id", 2L));
		assertThat(unfenced.rows()).isEqualTo(1);
		assertThat(JdbcEpochFence.of("billing", 3)
			.update(this.jdbc, "invoices", Map.of("status", "paid"), Map.of("id", 2L))
			.applied()).isTrue();
		JdbcFencedWriteResult late = JdbcEpochFence.of("billing", 2)
			.update(this.jdbc, "invoices", Map.of("status", "void"), Map.of("id", 2L));
		assertThat(late.isFencedOut()).isTrue();
		assertThat(late.supersededBy()).hasValue(3);
		assertThat(status(2)).isEqualTo("paid");
		JdbcFencedWriteResult missing = JdbcEpochFence.of("billing", 3)
			.update(this.jdbc, "invoices", Map.of("status", "paid"), Map.of("id", 99L));
		assertThat(missing.applied()).isFalse();
		assertThat(missing.isFencedOut()).isFalse();
	}

	@Test
	void anUpdateThatWritesSomeOfItsRowsIsPartialNeverASuccess() {
		this.jdbc.sql("ALTER TABLE invoices ADD COLUMN customer bigint").update();
		this.jdbc
			.sql("INSERT INTO invoices (id, status, customer, fence) VALUES (10, 'draft', 7, 2), "
					+ "(11, 'draft', 7, NULL)")
			.update();
		// epoch 2's successor (3) wrote invoice 10; a stale epoch 1 updates by customer:
		// only invoice 11 is its to write
		this.jdbc.sql("UPDATE invoices SET fence = 3 WHERE id = 10").update();
		JdbcFencedWriteResult stale = JdbcEpochFence.of("billing", 1)
			.update(this.jdbc, "invoices", Map.of("status", "void"), Map.of("customer", 7L));
		assertThat(stale.rows()).isEqualTo(1);
		assertThat(stale.matched()).isEqualTo(2);
		assertThat(stale.isPartial()).isTrue();
		assertThat(stale.applied()).isFalse();
		assertThat(stale.isFencedOut()).isFalse();
		assertThat(stale.supersededBy()).hasValue(3);
		assertThatExceptionOfType(FencedOutException.class)
			.isThrownBy(() -> stale.orThrow(JdbcEpochFence.of("billing", 1)))
			.withMessageContaining("changed 1 of the 2 rows")
			.withMessageContaining("epoch 3");
		JdbcFencedWriteResult current = JdbcEpochFence.of("billing", 3)
			.update(this.jdbc, "invoices", Map.of("status", "sent"), Map.of("customer", 7L));
		assertThat(current.applied()).isTrue();
		assertThat(current.rows()).isEqualTo(2);
	}

	@Test
	void aStatementOfOnesOwnTakesTheAssignmentAndTheCondition() {
		this.jdbc.sql("INSERT INTO invoices (id, status, fence) VALUES (3, 'draft', 5)").update();
		JdbcEpochFence fence = JdbcEpochFence.of("billing", 4);
		int rows = this.jdbc
			.sql("UPDATE invoices SET status = 'late', " + fence.assignment() + " WHERE id = 3 AND "
					+ fence.condition())
			.params(fence.params())
			.update();
		assertThat(rows).isZero();
		assertThat(status(3)).isEqualTo("draft");
	}

	@Test
	void namesThatAreNotPlainIdentifiersAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> JdbcEpochFence.of("billing", 1)
			.update(this.jdbc, "invoices; DROP TABLE invoices", Map.of("status", "x"), Map.of("id", 1L)));
		assertThatIllegalArgumentException().isThrownBy(() -> JdbcEpochFence.of("billing", 1).column("fence--"));
	}

	private String status(long id) {
		return this.jdbc.sql("SELECT status FROM invoices WHERE id = ?").param(id).query(String.class).single();
	}

}
