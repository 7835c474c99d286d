package dev.membership.engine.events;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.spi.NodeRuntime;

/**
 * Delivers a node's events: first to the starter's reactions, each isolated from the
 * others, on the reactions lane; then to the application's listener on a lane of its own,
 * so that a slow or throwing application listener can neither break nor delay the
 * reactions.
 */
public final class EventDispatch {

	private static final Logger log = LoggerFactory.getLogger(EventDispatch.class);

	private final NodeRuntime runtime;

	private final MembershipEventListener application;

	private final Set<Class<?>> failingEventTypes = ConcurrentHashMap.newKeySet();

	private volatile List<MembershipEventListener> reactions = List.of();

	public EventDispatch(NodeRuntime runtime, MembershipEventListener application) {
		this.runtime = runtime;
		this.application = application;
	}

	/** Set once, when the node starts (reactions may be beans created after the node). */
	public void reactions(List<MembershipEventListener> reactions) {
		this.reactions = List.copyOf(reactions);
	}

	public void publish(MembershipEvent event) {
		boolean delivered = this.runtime.reactions().execute(() -> {
			for (MembershipEventListener reaction : this.reactions) {
				try {
					reaction.onEvent(event);
				}
				catch (VirtualMachineError err) {
					// out of memory, a stack overflow: not the callback's own failure
					throw err;
				}
				catch (Throwable ex) {
					log.error("Membership reaction {} failed on {}", reaction, event, ex);
				}
			}
		});
		delivered &= this.runtime.application().execute(() -> {
			try {
				this.application.onEvent(event);
			}
			catch (VirtualMachineError err) {
				// out of memory, a stack overflow: not the callback's own failure
				throw err;
			}
			catch (Throwable ex) {
				if (this.failingEventTypes.add(event.getClass())) {
					log.error("An application listener failed on {}; the membership node goes on (logged once per "
							+ "event type, then at DEBUG)", event, ex);
				}
				else {
					log.debug("An application listener failed on {}", event, ex);
				}
			}
		});
		if (!delivered) {
			log.debug("Event {} not delivered: node stopped", event);
		}
	}

}
