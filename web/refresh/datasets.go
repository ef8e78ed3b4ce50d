package refresh

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"fieldboard/client"
	"fieldboard/rules"
	"fieldboard/rules/checks"
	"fieldboard/rules/domain"
	"fieldboard/store"
)

// refreshEvents reads event/all, live-details and every live subsample's
// quotas and eligibility rules, and writes them as one snapshot. When an
// event list fails nothing is written; when some subsamples' calls fail
// the snapshot is written with those subsamples marked as failed. An
// element of a list that cannot be read costs its subsample only: it is
// dropped, the subsample is kept as unknown, and the run counts it.
//
// Once every call is answered and before the snapshot is written, read
// is called with the live subsamples read (the library is read while
// the snapshot is written; see refreshLibrary); it returns at once.
func (r *Refresher) refreshEvents(ctx context.Context, ru *run, read func(live []domain.LiveSubsample)) error {
	run := store.Run{Dataset: store.DatasetEvents, StartedAt: r.opts.Now()}
	c := &counter{}
	ru.reading(store.DatasetEvents)
	ru.setPhase("event lists", 2)
	summaries, malformed, err := r.provider.AllSubsamples(ctx)
	c.add(err)
	ru.step()
	if err == nil && len(summaries) == 0 && len(malformed) == 0 {
		err = r.emptyEventList(ctx)
	}
	if err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	live, malformedLive, err := r.provider.LiveSubsamples(ctx)
	c.add(err)
	ru.step()
	if err != nil {
		return r.fail(ctx, ru, run, c, err)
	}

	ru.setPhase("quotas and rules", 2*len(live))
	details := make(map[int64]store.SubsampleDetail, len(live))
	var mu sync.Mutex
	forEach(ctx, r.opts.Concurrency, live, func(l domain.LiveSubsample) {
		d := r.fetchDetail(ctx, ru, c, l.SubsampleID)
		mu.Lock()
		details[l.SubsampleID] = d
		mu.Unlock()
	})
	// Past the deadline, the subsamples whose calls did not finish keep
	// their earlier data, marked as failed, and the rest is written; a
	// shutdown writes nothing.
	late := ctx.Err()
	if late != nil && !errors.Is(late, context.DeadlineExceeded) {
		return r.fail(ctx, ru, run, c, late)
	}

	ru.setPhase("saving", 0)
	run.FinishedAt = r.opts.Now()
	c.stamp(&run)
	if read != nil {
		read(live)
	}
	malformed = append(malformed, malformedLive...)
	countMalformed(&run, malformed, details)
	snap := store.EventsSnapshot{Run: run, Summaries: summaries, Live: live, Details: details,
		Unreadable: checks.Unreadable(summaries, live, malformed)}
	// Past the deadline what was read is still paced and written. The
	// states are decided beside the write, on the pacing of the snapshot
	// it replaces.
	saving := context.WithoutCancel(ctx)
	fetched := snap
	snap.Decide = func(ctx context.Context) (map[int64]store.SubsampleState, error) {
		totals, err := ru.store.TotalQuotaTracks(ctx, run.FinishedAt.Add(-rules.PaceWindow))
		if err != nil {
			return nil, fmt.Errorf("pace the live subsamples: %w", err)
		}
		return checks.States(fetched, totals), nil
	}
	snap.Detect = func(previous, next map[int64]store.SubsampleState) (map[int64]store.SubsampleState, []domain.Change) {
		return rules.Detect(previous, next, run.FinishedAt)
	}
	if _, err := ru.store.SaveEvents(saving, snap, r.opts.Retention); err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	r.done(run)
	if late != nil {
		unread := 0
		for _, l := range live {
			if d, ok := details[l.SubsampleID]; !ok || d.QuotasErr != nil || d.RulesErr != nil {
				unread++
			}
		}
		return fmt.Errorf("refresh events: the refresh deadline (%v) passed; %d of %d live subsamples keep their earlier data, marked as failed",
			r.opts.Deadline, unread, len(live))
	}
	return nil
}

// countMalformed stamps run with the elements dropped as unreadable: those
// of the event lists, and those that failed a subsample's quotas.
func countMalformed(run *store.Run, malformed []domain.MalformedElement, details map[int64]store.SubsampleDetail) {
	all := slices.Clone(malformed)
	for _, id := range slices.Sorted(maps.Keys(details)) {
		var bad *client.MalformedListError
		if errors.As(details[id].QuotasErr, &bad) {
			for _, m := range bad.Elements {
				m.SubsampleID = id
				all = append(all, m)
			}
		}
	}
	run.MalformedCount = len(all)
	if len(all) > 0 {
		run.MalformedFirst = all[0].String()
	}
}

// emptyEventList judges an empty event/all. The spec has it list every
// subsample the supplier has or had an allocation in, whatever its status,
// so once it listed some, an empty list is a broken provider rather than
// news: the refresh fails and the last good snapshot stays. (An empty
// live-details is taken as it comes: no live work is a real answer, and the
// careful one.)
func (r *Refresher) emptyEventList(ctx context.Context) error {
	had, err := r.store.CountSubsamples(ctx)
	if err != nil || had == 0 {
		return err
	}
	return &client.Error{Endpoint: "POST /supplier/v1/event/all", StatusCode: http.StatusOK, Attempts: 1,
		Err: fmt.Errorf("the provider listed no subsamples where the last good refresh had %d; that one is kept", had)}
}

// fetchDetail reads one subsample's quotas and eligibility rules.
func (r *Refresher) fetchDetail(ctx context.Context, ru *run, c *counter, id int64) store.SubsampleDetail {
	var d store.SubsampleDetail
	d.Quotas, d.QuotasErr = r.provider.Quotas(ctx, id)
	c.add(d.QuotasErr)
	ru.step()
	d.Rules, d.RulesErr = r.provider.EligibilityRules(ctx, id)
	c.add(d.RulesErr)
	ru.step()
	d.FetchedAt = r.opts.Now()
	if d.QuotasErr != nil || d.RulesErr != nil {
		r.opts.Logger.Warn("subsample fetch failed", "subsample", id, "quotas_err", d.QuotasErr, "rules_err", d.RulesErr)
	}
	return d
}

// refreshSubsample reads one live subsample's quotas and eligibility rules.
func (r *Refresher) refreshSubsample(ctx context.Context, ru *run, id int64) error {
	ru.reading(store.DatasetEvents)
	ru.setPhase("quotas and rules", 2)
	d := r.fetchDetail(ctx, ru, &counter{}, id)
	ru.setPhase("saving", 0)
	if err := ru.store.SaveSubsampleDetail(ctx, id, d); err != nil {
		return err
	}
	return errors.Join(d.QuotasErr, d.RulesErr)
}

// refreshReference reads countries, locales and survey statuses. An
// element of a list that cannot be read is dropped, and the run counts
// it; a country or a status only names things on the reference page. The
// locales list is kept whole or not at all, as it decides (a country's
// default locale, the locales whose library is read): with an element
// dropped, the list stored before stays, and only a first read is stored
// without the dropped elements.
func (r *Refresher) refreshReference(ctx context.Context, ru *run) error {
	run := store.Run{Dataset: store.DatasetReference, StartedAt: r.opts.Now()}
	c := &counter{}
	ru.reading(store.DatasetReference)
	ru.setPhase("reference data", 3)
	ref := store.Reference{}
	var malformed, bad []domain.MalformedElement
	var err error
	ref.Countries, bad, err = r.provider.Countries(ctx)
	if c.add(err); err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	malformed = append(malformed, bad...)
	ru.step()
	ref.Locales, bad, err = r.provider.Locales(ctx)
	if c.add(err); err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	if len(bad) > 0 {
		before, err := r.store.Locales(ctx)
		if err != nil {
			return r.fail(ctx, ru, run, c, err)
		}
		if len(before) > 0 {
			ref.Locales = before
		}
	}
	malformed = append(malformed, bad...)
	ru.step()
	ref.Statuses, bad, err = r.provider.SurveyStatuses(ctx)
	if c.add(err); err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	malformed = append(malformed, bad...)
	ru.step()
	run.FinishedAt = r.opts.Now()
	c.stamp(&run)
	r.dropped(&run, malformed)
	ref.Run = run
	if err := ru.store.SaveReference(ctx, ref); err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	r.done(run)
	return nil
}

// dropped stamps run with the elements of a reference or library list
// that were dropped as unreadable, and logs them, one line each.
func (r *Refresher) dropped(run *store.Run, malformed []domain.MalformedElement) {
	run.MalformedCount = len(malformed)
	if len(malformed) > 0 {
		run.MalformedFirst = malformed[0].String()
	}
	for _, m := range malformed {
		r.opts.Logger.Warn("provider list element dropped", "dataset", run.Dataset, "element", m.String())
	}
}

// libraryRead is a read of the question library's locales: what
// startLibrary started, done when its reads end.
type libraryRead struct {
	run     store.Run
	c       *counter
	locales []string
	libs    []store.LocaleLibrary
	// malformed are the elements of each locale's lists (as libs) that
	// could not be read and were left out.
	malformed [][]domain.MalformedElement
	done      chan struct{}
}

// maxLibraryLocales bounds the locales one library read takes, each a
// call for its questions and one for each question's answers: more than
// the language-country pairs any provider sells in.
const maxLibraryLocales = 300

// libraryLocales returns, sorted, the locales of needed whose library
// is to be read: all of them when the library is due, otherwise those
// that have none yet (have). Only the locales the provider's locales list
// names (known, lower case as strings.ToLower has it, which folds more
// than SQLite's lower()) have a library; a code it does not name is
// not asked for, unless the list was never read (known empty). At most
// maxLibraryLocales are read, the first in order.
func libraryLocales(needed []string, have map[string]time.Time, known map[string]bool, due bool) []string {
	var locales []string
	for _, l := range needed {
		if len(known) > 0 && !known[strings.ToLower(l)] {
			continue
		}
		if _, ok := have[l]; due || !ok {
			locales = append(locales, l)
		}
	}
	sort.Strings(locales)
	locales = slices.Compact(locales)
	return locales[:min(len(locales), maxLibraryLocales)]
}

// knownLocales is the set of the provider's locale codes, lower case, as
// the stored locales list has them; empty when it was never read.
func (r *Refresher) knownLocales(ctx context.Context) (map[string]bool, error) {
	list, err := r.store.Locales(ctx)
	if err != nil {
		return nil, err
	}
	known := make(map[string]bool, len(list))
	for _, l := range list {
		known[strings.ToLower(l.Locale)] = true
	}
	return known, nil
}

// readLibraryEarly starts reading the library of the locales of live,
// the live subsamples an events refresh read and is about to write, as
// refreshLibrary would read them once they are written (the locales the
// live tables will hold, lower case, SubsampleLocales). It returns at
// once, nil when there is nothing to read or the library's locales
// cannot be read; refreshLibrary waits for the reads and keeps only the
// locales it would have read.
func (r *Refresher) readLibraryEarly(ctx context.Context, ru *run, due bool, live []domain.LiveSubsample) *libraryRead {
	have, err := r.store.LibraryLocales(ctx)
	if err != nil {
		return nil
	}
	known, err := r.knownLocales(ctx)
	if err != nil {
		return nil
	}
	var needed []string
	for _, l := range live {
		for _, loc := range l.Locales {
			if loc.Name != "" {
				needed = append(needed, strings.ToLower(loc.Name))
			}
		}
	}
	locales := libraryLocales(needed, have, known, due)
	if len(locales) == 0 {
		return nil
	}
	return r.startLibrary(ctx, ru, &counter{}, locales)
}

// startLibrary starts reading the library of locales, counting its
// calls in c. Locales are read side by side, so one locale's short tail
// of answers does not leave the pool idle; every provider call of the
// read takes a slot of the same pool, so no more than Concurrency calls
// are ever in flight.
func (r *Refresher) startLibrary(ctx context.Context, ru *run, c *counter, locales []string) *libraryRead {
	read := &libraryRead{run: store.Run{Dataset: store.DatasetLibrary, StartedAt: r.opts.Now()}, c: c,
		locales: locales, libs: make([]store.LocaleLibrary, len(locales)),
		malformed: make([][]domain.MalformedElement, len(locales)), done: make(chan struct{})}
	ru.reading(store.DatasetLibrary)
	ru.setPhase("question library", len(locales))
	go func() {
		defer close(read.done)
		indexes := make([]int, len(locales))
		for i := range indexes {
			indexes[i] = i
		}
		slots := make(chan struct{}, r.opts.Concurrency)
		forEach(ctx, max(1, r.opts.Concurrency/4), indexes, func(i int) {
			read.libs[i], read.malformed[i] = r.fetchLibrary(ctx, ru, c, locales[i], slots)
			ru.step()
		})
	}()
	return read
}

// refreshLibrary reads the question library of the live subsamples'
// locales (as stored: after the events snapshot this refresh wrote): all
// of them when the library is due, otherwise only the locales that have
// none yet. A locale whose questions or answers fail keeps its earlier
// library.
//
// early, when not nil, is the read readLibraryEarly started while the
// events snapshot was written, so that a full refresh's library costs no
// time of its own but its write. It holds the libraries of the locales
// the snapshot was to hold; the stored locales decide, as without it: a
// locale read early that is not among them is dropped, and one among
// them not read early is read now. The library is written after the
// snapshot.
func (r *Refresher) refreshLibrary(ctx context.Context, ru *run, due bool, early *libraryRead) error {
	if early != nil {
		<-early.done
	}
	needed, err := r.store.SubsampleLocales(ctx)
	if err != nil {
		return err
	}
	have, err := r.store.LibraryLocales(ctx)
	if err != nil {
		return err
	}
	known, err := r.knownLocales(ctx)
	if err != nil {
		return err
	}
	locales := libraryLocales(needed, have, known, due)
	if len(locales) == 0 {
		return nil
	}
	read := early
	if read == nil {
		read = r.startLibrary(ctx, ru, &counter{}, locales)
		<-read.done
	} else if !slices.Equal(read.locales, locales) {
		read = r.keepLibraries(ctx, ru, read, locales)
	}
	run, c, libs := read.run, read.c, read.libs
	var malformed []domain.MalformedElement
	for i, lib := range libs {
		if lib.Err == nil {
			malformed = append(malformed, read.malformed[i]...)
		}
	}
	if err := ctx.Err(); err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	var failed []string
	var firstErr error
	for _, lib := range libs {
		if lib.Err != nil {
			failed = append(failed, lib.Locale)
			firstErr = firstOf(firstErr, lib.Err)
		}
	}
	if len(failed) == len(libs) {
		return r.fail(ctx, ru, run, c, firstErr)
	}
	ru.setPhase("saving", 0)
	run.FinishedAt = r.opts.Now()
	c.stamp(&run)
	r.dropped(&run, malformed)
	if err := ru.store.SaveLibrary(ctx, run, libs); err != nil {
		return r.fail(ctx, ru, run, c, err)
	}
	r.done(run)
	if len(failed) > 0 {
		return fmt.Errorf("question library of %s: %w", strings.Join(failed, ", "), firstErr)
	}
	return nil
}

// keepLibraries returns the libraries of locales: those read holds, and
// the others read now (their calls counted with read's).
func (r *Refresher) keepLibraries(ctx context.Context, ru *run, read *libraryRead, locales []string) *libraryRead {
	byLocale := make(map[string]store.LocaleLibrary, len(read.libs))
	dropped := make(map[string][]domain.MalformedElement, len(read.libs))
	for i, lib := range read.libs {
		byLocale[lib.Locale], dropped[lib.Locale] = lib, read.malformed[i]
	}
	var missing []string
	for _, l := range locales {
		if _, ok := byLocale[l]; !ok {
			missing = append(missing, l)
		}
	}
	if len(missing) > 0 {
		more := r.startLibrary(ctx, ru, read.c, missing)
		<-more.done
		for i, lib := range more.libs {
			byLocale[lib.Locale], dropped[lib.Locale] = lib, more.malformed[i]
		}
	}
	kept := &libraryRead{run: read.run, c: read.c, locales: locales, libs: make([]store.LocaleLibrary, len(locales)),
		malformed: make([][]domain.MalformedElement, len(locales))}
	for i, l := range locales {
		kept.libs[i], kept.malformed[i] = byLocale[l], dropped[l]
	}
	return kept
}

// fetchLibrary reads the questions of one locale and the answers of each,
// and returns with it the elements of its lists left out as unreadable
// (a question dropped is not asked for its answers). Each provider call
// holds one of slots while it runs.
func (r *Refresher) fetchLibrary(ctx context.Context, ru *run, c *counter, locale string, slots chan struct{}) (store.LocaleLibrary, []domain.MalformedElement) {
	lib := store.LocaleLibrary{Locale: locale, Answers: map[int64][]domain.Answer{}}
	slots <- struct{}{}
	questions, malformed, err := r.provider.Questions(ctx, locale)
	<-slots
	c.add(err)
	if err != nil {
		lib.Err = err
		lib.FetchedAt = r.opts.Now()
		return lib, nil
	}
	lib.Questions = questions
	ru.setPhase("question library", len(questions))
	var mu sync.Mutex
	forEach(ctx, r.opts.Concurrency, questions, func(q domain.Question) {
		slots <- struct{}{}
		answers, bad, err := r.provider.Answers(ctx, locale, q.ID)
		<-slots
		c.add(err)
		ru.step()
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			lib.Err = firstOf(lib.Err, err)
			return
		}
		lib.Answers[q.ID] = answers
		malformed = append(malformed, bad...)
	})
	if lib.Err == nil {
		lib.Err = ctx.Err()
	}
	lib.FetchedAt = r.opts.Now()
	slices.SortFunc(malformed, func(a, b domain.MalformedElement) int {
		return cmp.Or(strings.Compare(a.List, b.List), cmp.Compare(a.Index, b.Index))
	})
	return lib, malformed
}

// firstOf keeps the first error.
func firstOf(first, next error) error {
	if first != nil {
		return first
	}
	return next
}
