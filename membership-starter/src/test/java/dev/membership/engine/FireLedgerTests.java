package dev.membership.engine;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.membership.spi.FireMark;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A group's ledger of fires as a term begins: the lease's marks, unless this node knows a
 * later fire of a job (one of its own earlier terms began or ended it, and that record
 * never reached the lease), which it keeps and writes with its first renewal.
 */
class FireLedgerTests {

	private static final Instant T = Instant.parse("2026-11-26T02:00:00Z");

	@Test
	void aTermBeginsOnTheLeasesMarksWithNothingToWrite() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of(new FireMark("a#job", T, true)));
		assertThat(ledger.mark("a#job")).isEqualTo(new FireMark("a#job", T, true));
		assertThat(ledger.changed(1)).isNull();
	}

	@Test
	void aFireThisNodeRanWhoseRecordNeverReachedTheLeaseIsKeptAndWritten() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of(new FireMark("a#job", T, true)));
		ledger.began(new FireMark("a#job", T.plusSeconds(60), false));
		ledger.ended(new FireMark("a#job", T.plusSeconds(60), true));
		// the term ended before a renewal wrote that; this node leads again, on the
		// lease's older mark
		ledger.inherit(2, List.of(new FireMark("a#job", T, true), new FireMark("b#job", T, true)));
		assertThat(ledger.mark("a#job")).isEqualTo(new FireMark("a#job", T.plusSeconds(60), true));
		assertThat(ledger.mark("b#job")).isEqualTo(new FireMark("b#job", T, true));
		assertThat(ledger.changed(2)).as("the first renewal writes it")
			.containsExactlyInAnyOrder(new FireMark("a#job", T.plusSeconds(60), true), new FireMark("b#job", T, true));
	}

	@Test
	void aRunThisNodeSawEndIsEndedEvenWhenTheLeaseSaysItBegan() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of());
		ledger.began(new FireMark("a#job", T, false));
		ledger.ended(new FireMark("a#job", T, true));
		ledger.inherit(2, List.of(new FireMark("a#job", T, false)));
		assertThat(ledger.mark("a#job")).isEqualTo(new FireMark("a#job", T, true));
	}

	@Test
	void aLaterFireOfAnotherNodeInTheLeaseWins() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of());
		// this node's term ended in the run
		ledger.began(new FireMark("a#job", T, false));
		ledger.inherit(2, List.of(new FireMark("a#job", T.plusSeconds(120), true)));
		assertThat(ledger.mark("a#job")).isEqualTo(new FireMark("a#job", T.plusSeconds(120), true));
		assertThat(ledger.changed(2)).isNull();
	}

	@Test
	void aTermTheMarksAreNotOfWritesNone() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(3, List.of(new FireMark("a#job", T, true)));
		ledger.began(new FireMark("a#job", T.plusSeconds(60), false));
		// a lease this node took under the database's previous clock and released without
		// leading under it
		assertThat(ledger.forRelease(4)).isNull();
		assertThat(ledger.changed(4)).isNull();
		assertThat(ledger.forRelease(3)).containsExactly(new FireMark("a#job", T.plusSeconds(60), false));
	}

}
