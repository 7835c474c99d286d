package dev.membership.testsupport;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;

import dev.membership.spi.Heartbeat;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * A store for one node, just enough to lead: an application's own, with no database (and
 * no MongoDB type) behind it.
 */
public final class OneNodeStore {

	private OneNodeStore() {
	}

	public static MembershipStore create() {
		MembershipStore store = mock(MembershipStore.class);
		when(store.serverTime()).thenAnswer((call) -> Optional.of(Instant.now()));
		when(store.tryAcquire(any(), any(), any(), any()))
			.thenAnswer((call) -> Optional.of(new LeaseRecord(call.getArgument(0), call.getArgument(1), 1,
					call.getArgument(3), Instant.now(), Instant.now())));
		when(store.renew(any(), any(), anyLong(), any(), any())).thenAnswer((call) -> Optional.of(Instant.now()));
		when(store.heartbeat(any())).thenAnswer((call) -> new Heartbeat(Instant.now(), false));
		when(store.findLeases(any(), anyLong())).thenReturn(new LeaseReading(Map.of(), null));
		AtomicLong rosterVersion = new AtomicLong();
		when(store.writeRoster(any(), any(), any(), any(), anyLong(), anyLong()))
			.thenAnswer((call) -> OptionalLong.of(rosterVersion.incrementAndGet()));
		return store;
	}

}
