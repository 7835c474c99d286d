package dev.membership.engine.fires;

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
		ledger.claim(new FireMark("a#job", T.plusSeconds(60), false));
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
		ledger.claim(new FireMark("a#job", T, false));
		ledger.ended(new FireMark("a#job", T, true));
		ledger.inherit(2, List.of(new FireMark("a#job", T, false)));
		assertThat(ledger.mark("a#job")).isEqualTo(new FireMark("a#job", T, true));
	}

	@Test
	void aLaterFireOfAnotherNodeInTheLeaseWins() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of());
		// this node's term ended in the run
		ledger.claim(new FireMark("a#job", T, false));
		ledger.inherit(2, List.of(new FireMark("a#job", T.plusSeconds(120), true)));
		assertThat(ledger.mark("a#job")).isEqualTo(new FireMark("a#job", T.plusSeconds(120), true));
		assertThat(ledger.changed(2)).isNull();
	}

	@Test
	void aTermTheMarksAreNotOfWritesNone() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(3, List.of(new FireMark("a#job", T, true)));
		ledger.claim(new FireMark("a#job", T.plusSeconds(60), false));
		ledger.begun("a#job", T.plusSeconds(60));
		// a lease this node took under the database's previous clock and released without
		// leading under it
		assertThat(ledger.forRelease(4)).isNull();
		assertThat(ledger.changed(4)).isNull();
		assertThat(ledger.forRelease(3)).containsExactly(new FireMark("a#job", T.plusSeconds(60), false));
	}

	/**
	 * A fire claimed whose run had not begun when its term ended (it waited for a busy
	 * scheduler's thread, say): a renewal writes it begun (a crash may come after its run
	 * began), the release owed (it never will): the next term runs it. Before, the
	 * release said "begun, not ended", and under STRICT and SKIP the successor never ran
	 * it.
	 */
	@Test
	void aClaimedFireWhoseRunNeverBeganIsOwedByTheRelease() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of());
		ledger.claim(new FireMark("a#job", T, false, false, "every PT10S"));
		assertThat(ledger.changed(1)).containsExactly(new FireMark("a#job", T, false, false, "every PT10S"));
		assertThat(ledger.forRelease(1)).containsExactly(new FireMark("a#job", T, false, true, "every PT10S"));
		ledger.begun("a#job", T);
		assertThat(ledger.forRelease(1)).containsExactly(new FireMark("a#job", T, false, false, "every PT10S"));
	}

	@Test
	void aFireThatWillNotBeginIsOwedAtOnceAndOneDisplacedWhileTheTermLedOnIsSaidSo() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of());
		ledger.claim(new FireMark("a#job", T, false));
		ledger.notBegun("a#job", T);
		assertThat(ledger.changed(1)).containsExactly(new FireMark("a#job", T, false, true, null));
		assertThat(ledger.claim(new FireMark("a#job", T.plusSeconds(10), false)))
			.isEqualTo(new FireMark("a#job", T, false, true, null));
		// an owed fire inherited from an earlier term is the plan's to run, not missed
		ledger.inherit(2, List.of(new FireMark("a#job", T, false, true, null)));
		assertThat(ledger.claim(new FireMark("a#job", T, false))).isNull();
	}

	/**
	 * Fires skipped as overlapping a run that then ended are done with: the record moves
	 * on to the last, so that a successor does not run what the history says was skipped.
	 * Before, the record stayed at the run's fire, and the next leader caught the skipped
	 * fires up (the history showed one fire both skipped and run).
	 */
	@Test
	void firesSkippedAsOverlappingARunThatEndedAreDoneWith() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of());
		ledger.claim(new FireMark("a#job", T, false, false, "every PT10S"));
		ledger.begun("a#job", T);
		ledger.ended(new FireMark("a#job", T, true));
		ledger.skippedThrough("a#job", T.plusSeconds(20));
		assertThat(ledger.forRelease(1))
			.containsExactly(new FireMark("a#job", T.plusSeconds(20), true, false, "every PT10S"));
		// never back, nor over a fire begun since
		ledger.claim(new FireMark("a#job", T.plusSeconds(30), false));
		ledger.skippedThrough("a#job", T.plusSeconds(40));
		assertThat(ledger.mark("a#job").at()).isEqualTo(T.plusSeconds(30));
	}

	/**
	 * A fire this node's earlier term owed is not its to run again when the lease says a
	 * later term began it: the lease is the newer word. Before the fix, the owed mark
	 * won, and a STRICT fire ran twice (the simulator's seed 2026120790736).
	 */
	@Test
	void aFireOwedEarlierThatAnotherTermBeganSinceStaysBegun() {
		FireLedger ledger = new FireLedger();
		ledger.inherit(1, List.of());
		ledger.claim(new FireMark("a#job", T, false));
		ledger.notBegun("a#job", T);
		ledger.inherit(3, List.of(new FireMark("a#job", T, false)));
		assertThat(ledger.mark("a#job")).isEqualTo(new FireMark("a#job", T, false));
	}

}
