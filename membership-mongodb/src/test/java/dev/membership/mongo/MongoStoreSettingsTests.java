package dev.membership.mongo;

import java.time.Duration;

import com.mongodb.WriteConcern;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Plain Java users get the same refusal of a weak lease write concern as Spring Boot
 * users.
 */
class MongoStoreSettingsTests {

	private static MongoStoreSettings with(WriteConcern concern) {
		return new MongoStoreSettings("n", "l", Duration.ofSeconds(5), concern, Duration.ofMinutes(10));
	}

	@Test
	void leaseWritesTakeAMajorityWithOrWithoutTheJournal() {
		assertThat(with(WriteConcern.MAJORITY).leaseWriteConcern()).isEqualTo(WriteConcern.MAJORITY);
		assertThat(with(WriteConcern.MAJORITY.withJournal(true)).leaseWriteConcern().getJournal()).isTrue();
	}

	@Test
	void aWeakerLeaseWriteConcernIsRefused() {
		for (WriteConcern weak : new WriteConcern[] { WriteConcern.W1, WriteConcern.W2, WriteConcern.JOURNALED,
				WriteConcern.ACKNOWLEDGED, WriteConcern.UNACKNOWLEDGED }) {
			assertThatIllegalArgumentException().as(weak.toString())
				.isThrownBy(() -> with(weak))
				.withMessageContaining("Lease writes need a majority write concern");
		}
	}

	@Test
	void aMajorityWithoutTheJournalIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> with(WriteConcern.MAJORITY.withJournal(false)))
			.withMessageContaining("cannot turn the journal off");
	}

}
