// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_hold.c - `phyllo attach`'s wait (hold.c) on a pty, no module
 * needed: closing the master hangs the slave up, as unplugging a USB
 * adapter does its tty; a stop request ends the wait too. And the lock
 * names (lib_port.c) of the ttys it will meet, and what a lock file must
 * be to be believed (lib_port.c too): a regular file, read without following
 * a link or waiting on a FIFO, naming a process that has the tty open.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ptest.h"
#include "hold.h"
#include "phyllo-internal.h"

static int master;
static volatile sig_atomic_t stop;

static int open_pty(void)
{
	int s;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return -1;
	s = open(ptsname(master), O_RDWR | O_NOCTTY);
	return s;
}

static void *close_master_later(void *arg)
{
	(void)arg;
	usleep(300000);
	close(master);
	return NULL;
}

static void *stop_later(void *arg)
{
	(void)arg;
	usleep(300000);
	stop = 1;
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void hold_tty_returns_on_hangup(void)
{
	int slave = open_pty();
	pthread_t th;
	double t0 = now_s();

	PTEST_EXPECT(slave >= 0);
	stop = 0;
	pthread_create(&th, NULL, close_master_later, NULL);
	PTEST_EXPECT_EQ(hold_tty(slave, &stop), HOLD_HUNGUP);
	PTEST_EXPECT(now_s() - t0 < 2.5);	/* within the once-a-second look */
	pthread_join(th, NULL);
	close(slave);
}

static void hold_tty_returns_when_asked_to_stop(void)
{
	int slave = open_pty();
	pthread_t th;

	PTEST_EXPECT(slave >= 0);
	stop = 0;
	pthread_create(&th, NULL, stop_later, NULL);
	PTEST_EXPECT_EQ(hold_tty(slave, &stop), HOLD_STOPPED);
	pthread_join(th, NULL);
	close(slave);
	close(master);
}

static void port_name_is_the_kernels(void)
{
	char name[64];
	int slave = open_pty();
	const char *pts = ptsname(master);

	PTEST_EXPECT_EQ(phyllo_port_name(pts, name, sizeof(name)), 0);
	/* /dev/pts/N -> ptsN, as sysfs and `phyllo list` show it */
	PTEST_EXPECT(!strncmp(name, "pts", 3) && !strcmp(name + 3, pts + 9));
	PTEST_EXPECT_EQ(phyllo_port_name("/dev/null", name, sizeof(name)), 0);
	PTEST_EXPECT(!strcmp(name, "null"));
	PTEST_EXPECT_EQ(phyllo_port_name("/nonexistent", name, sizeof(name)), -1);
	PTEST_EXPECT_EQ(phyllo_port_name("/tmp", name, sizeof(name)), -1);
	close(slave);
	close(master);
}

/* A scratch folder of the test's own, and a file in it. */
static char lock_dir[] = "/tmp/phyllo-test-lock-XXXXXX";

static const char *lock_at(const char *name)
{
	static char path[sizeof(lock_dir) + 32];

	snprintf(path, sizeof(path), "%s/%s", lock_dir, name);
	return path;
}

static void write_file(const char *name, const char *text)
{
	FILE *f = fopen(lock_at(name), "we");

	PTEST_EXPECT(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void lock_read_believes_only_a_regular_file(void)
{
	char target[sizeof(lock_dir) + 32];
	double t0;

	PTEST_EXPECT(mkdtemp(lock_dir) != NULL);
	write_file("pid", "      4321\n");
	write_file("junk", "four\n");
	write_file("neg", "-5\n");
	PTEST_EXPECT_EQ(phyllo_lib_lock_read(lock_at("pid")), 4321);
	PTEST_EXPECT_EQ(phyllo_lib_lock_read(lock_at("junk")), 0);
	PTEST_EXPECT_EQ(phyllo_lib_lock_read(lock_at("neg")), 0);
	PTEST_EXPECT_EQ(phyllo_lib_lock_read(lock_at("absent")), 0);
	snprintf(target, sizeof(target), "%s", lock_at("pid"));
	PTEST_EXPECT_EQ(symlink(target, lock_at("link")), 0);
	PTEST_EXPECT_EQ(phyllo_lib_lock_read(lock_at("link")), 0);
	/* a FIFO with no writer: an open without O_NONBLOCK waits for ever */
	PTEST_EXPECT_EQ(mkfifo(lock_at("fifo"), 0600), 0);
	alarm(5);
	t0 = now_s();
	PTEST_EXPECT_EQ(phyllo_lib_lock_read(lock_at("fifo")), 0);
	PTEST_EXPECT(now_s() - t0 < 1);
	alarm(0);
	unlink(lock_at("pid"));
	unlink(lock_at("junk"));
	unlink(lock_at("neg"));
	unlink(lock_at("link"));
	unlink(lock_at("fifo"));
	PTEST_EXPECT_EQ(rmdir(lock_dir), 0);
}

/* A child that sleeps, with the pty's slave open or with nothing open. */
static pid_t child_sleeping(int keep)
{
	pid_t pid = fork();
	int fd;

	if (pid == 0) {
		for (fd = 0; fd < 64; fd++)
			if (fd != keep)
				close(fd);
		pause();
		_exit(0);
	}
	return pid;
}

static void lock_holds_only_with_the_tty_open(void)
{
	int slave = open_pty();
	pid_t with, without;
	struct stat st;

	PTEST_EXPECT(slave >= 0 && !fstat(slave, &st));
	with = child_sleeping(slave);
	without = child_sleeping(-1);
	usleep(100000);
	PTEST_EXPECT(phyllo_lib_lock_holds(with, &st));
	PTEST_EXPECT(!phyllo_lib_lock_holds(without, &st));
	/* this process holds the master: the pty's other end counts */
	close(slave);
	PTEST_EXPECT(phyllo_lib_lock_holds(getpid(), &st));
	kill(with, SIGKILL);
	kill(without, SIGKILL);
	waitpid(with, NULL, 0);
	waitpid(without, NULL, 0);
	PTEST_EXPECT(!phyllo_lib_lock_holds(with, &st));	/* gone */
	close(master);
	PTEST_EXPECT(!phyllo_lib_lock_holds(getpid(), &st));
}

static const struct ptest_case hold_cases[] = {
	PTEST_CASE(lock_read_believes_only_a_regular_file),
	PTEST_CASE(lock_holds_only_with_the_tty_open),
	PTEST_CASE(hold_tty_returns_on_hangup),
	PTEST_CASE(hold_tty_returns_when_asked_to_stop),
	PTEST_CASE(port_name_is_the_kernels),
};

PTEST_MAIN(phyllo_suite_hold, "phyllo_hold", hold_cases)
