package dev.membership.sample;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;

import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.liveness.MemberJoinedEvent;
import dev.membership.liveness.MemberLeftEvent;

/**
 * A service that runs as several instances: one leads, all know each other, they tell
 * each other things.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

	private static final Logger log = LoggerFactory.getLogger(SampleApplication.class);

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

	@EventListener
	void elected(LeaderElectedEvent event) {
		log.info("ELECTED: this node ({}) now leads group '{}' (epoch {})", event.observerNodeId(), event.group(),
				event.epoch());
	}

	@EventListener
	void revoked(LeaderRevokedEvent event) {
		log.info("REVOKED: this node ({}) no longer leads group '{}' (epoch {}): {}", event.observerNodeId(),
				event.group(), event.epoch(), event.reason());
	}

	@EventListener
	void joined(MemberJoinedEvent event) {
		log.info("Member joined: {} at {}", event.member().nodeId(), event.member().address());
	}

	@EventListener
	void left(MemberLeftEvent event) {
		log.info("Member left: {}", event.member().nodeId());
	}

}
