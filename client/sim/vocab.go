package sim

// researchType is one of the provider's research types.
type researchType struct {
	id     int64
	name   string
	weight int      // relative share of subsamples
	labels []string // how event names describe studies of this type
}

func researchTypes() []researchType {
	return []researchType{
		{1, "Ad Hoc", 62, []string{"Concept Test", "U&A", "Ad Test", "Pricing Study", "Segmentation", "Pack Test", "Claims Test", "Brand Health"}},
		{2, "Tracker", 20, []string{"Brand Tracker", "Ad Tracker", "Customer Tracker", "Media Tracker"}},
		{3, "Diary", 5, []string{"Diary", "Consumption Diary"}},
		{4, "In-Home Use Test", 5, []string{"IHUT", "Product Placement"}},
		{5, "Community", 4, []string{"Community Recruit", "Insight Community"}},
		{6, "Qualitative Recruit", 4, []string{"Qual Recruit", "Focus Group Recruit", "IDI Recruit"}},
	}
}

// category is a specific category with the generic and main categories
// that contain it. Ids are distinct per level: main 1-9, generic 100s,
// specific 1000s.
type category struct {
	mainID, genericID, id int64
	main, generic, name   string
}

func categoryTree() []category {
	type generic struct {
		id        int64
		name      string
		specifics []string
	}
	tree := []struct {
		id       int64
		name     string
		generics []generic
	}{
		{1, "Consumer Goods", []generic{
			{101, "Food & Beverage", []string{"Snacks", "Soft Drinks", "Alcoholic Beverages", "Dairy", "Coffee & Tea"}},
			{102, "Personal Care", []string{"Hair Care", "Skin Care", "Oral Care"}},
			{103, "Household", []string{"Cleaning Products", "Laundry", "Pet Food"}},
		}},
		{2, "Technology", []generic{
			{201, "Consumer Electronics", []string{"Smartphones", "Televisions", "Wearables"}},
			{202, "Software & Internet", []string{"Streaming Video", "Video Games", "Social Media"}},
		}},
		{3, "Healthcare", []generic{
			{301, "Patients", []string{"Diabetes", "Allergies", "Cardiology"}},
			{302, "Wellness", []string{"Fitness", "Nutrition", "Sleep"}},
		}},
		{4, "Financial Services", []generic{
			{401, "Banking", []string{"Credit Cards", "Mortgages", "Current Accounts"}},
			{402, "Insurance", []string{"Car Insurance", "Health Insurance", "Home Insurance"}},
		}},
		{5, "Media & Leisure", []generic{
			{501, "Travel", []string{"Airlines", "Hotels", "Cruises"}},
			{502, "Entertainment", []string{"Music", "Cinema", "Sports Events"}},
		}},
		{6, "Automotive", []generic{
			{601, "Vehicles", []string{"Electric Vehicles", "SUVs", "Used Cars"}},
			{602, "Aftermarket", []string{"Tyres", "Car Servicing"}},
		}},
		{7, "Retail", []generic{
			{701, "Shopping", []string{"Grocery Shopping", "Online Shopping", "Fashion"}},
		}},
	}
	var cs []category
	for _, m := range tree {
		for _, g := range m.generics {
			for i, s := range g.specifics {
				cs = append(cs, category{
					mainID: m.id, genericID: g.id, id: g.id*10 + int64(i+1),
					main: m.name, generic: g.name, name: s,
				})
			}
		}
	}
	return cs
}

// projectManagers are the provider's field coordinators and project
// managers.
func projectManagers() []string {
	return []string{
		"Anna Schmidt", "James O'Connor", "Priya Raman", "Lucía Fernández", "Tom Becker", "Chloé Martin",
		"Marco Rossi", "Emily Chen", "Daan de Vries", "Olivia Brown", "Kenji Watanabe", "Sofia Almeida",
		"Noah Williams", "Fatima Haddad", "Lukas Meier", "Grace Kim",
	}
}

// audiences describe the target group in subsample names.
func audiences() []string {
	return []string{"Gen Pop", "Nat Rep", "Gen Pop 18-65", "Parents", "Category Users", "Pet Owners", "Gamers",
		"Car Owners", "Primary Grocery Shoppers", "HH Decision Makers", "Millennials", "Boomers 55+"}
}

// clientNames are the end clients whose names open event names.
func clientNames() []string {
	return []string{"Globex", "Initech", "Northwind", "Contoso", "Umbrella", "Vandelay", "Hooli", "Soylent", "Acme", "Stark", "Wonka", "Cyberdyne"}
}
