package dev.membership.sample.security;

import java.security.SecureRandom;
import java.util.Base64;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may do what: anyone who reaches the node reads (the page,
 * {@code /actuator/cluster}, health, metrics); only the operator writes to the actuator
 * (among them the cluster's operations, {@code POST /actuator/cluster/<action>}, HTTP
 * Basic), and each action is recorded with that name. The endpoint's writes are opened in
 * {@code application.properties}
 * ({@code management.endpoint.cluster.access=unrestricted}) because this guards them.
 * Nodes' broadcasts carry their own signature ({@code /membership/broadcast}) and need no
 * login.
 */
@Configuration(proxyBeanMethods = false)
// the standalone database serves nothing
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@EnableConfigurationProperties(OperatorProperties.class)
class SampleSecurity {

	private static final Logger log = LoggerFactory.getLogger(SampleSecurity.class);

	@Bean
	SecurityFilterChain operatorOnlySteers(HttpSecurity http) throws Exception {
		return http.authorizeHttpRequests((requests) -> requests.requestMatchers(HttpMethod.GET, "/**")
			.permitAll()
			// every actuator write, wherever the actuator's base path or port: the
			// cluster's operations among them
			.requestMatchers(EndpointRequest.toAnyEndpoint())
			.hasRole("OPERATOR")
			.anyRequest()
			.permitAll())
			.httpBasic(Customizer.withDefaults())
			// scripts with HTTP Basic and no session: nothing for a forged cross-site
			// request to ride on, and the endpoint's writes take JSON only
			.csrf((csrf) -> csrf.disable())
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.build();
	}

	@Bean
	InMemoryUserDetailsManager sampleOperator(OperatorProperties operator) {
		String password = operator.password();
		if (password == null || password.isBlank()) {
			byte[] random = new byte[18];
			new SecureRandom().nextBytes(random);
			password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
			log.warn("The sample's operator, who may steer the cluster (POST /actuator/cluster/<action>, HTTP Basic): "
					+ "user '{}', password '{}'. Made up for this start: set sample.operator.password to choose one",
					operator.name(), password);
		}
		return new InMemoryUserDetailsManager(User.withUsername(operator.name())
			.password(PasswordEncoderFactories.createDelegatingPasswordEncoder().encode(password))
			.roles("OPERATOR")
			.build());
	}

}
