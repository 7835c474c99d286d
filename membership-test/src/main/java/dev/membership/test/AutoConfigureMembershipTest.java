package dev.membership.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Puts the application's membership node on a {@link SimulatedCluster} for a Spring Boot
 * test: an in-memory database instead of MongoDB, and virtual time, so the test controls
 * leadership and members without waiting. The cluster is a bean: autowire it to elect,
 * revoke, or add members. The node starts alone and leads its groups.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(MembershipTestAutoConfiguration.class)
public @interface AutoConfigureMembershipTest {

}
